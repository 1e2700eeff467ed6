import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

private let notesSchema = """
domain notes

/// A short note.
indexed entity Note {
    id: UUID

    @title @searchable
    title: String

    @searchable
    body: String?

    pinned: Bool = false
}

@undoable
intent createNote creates Note {
    title: String
    body: String?
    pinned: Bool?
}

@undoable
intent updateNote updates Note {
    @target
    note: Note
    title: String?
    body: String?
    pinned: Bool?
}

@undoable @confirm
intent deleteNote deletes Note {
    @target
    note: Note
}

intent searchNotes searches Note {
    text: String?
    pinned: Bool?
}
"""

private let noteEntity = QualifiedName(domain: "notes", name: "Note")

/// A store with only the notes domain, written to a scratch directory.
private func notesStore(alongsideCalendar: Bool = false) throws -> TestStore {
    let directory = try Fixture.scratchDirectory("notes-schema")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Fixture.writeSchema(["notes/notes.cal": notesSchema], in: directory)
    let paths = alongsideCalendar ? [directory.path, Fixture.schemaDirectory] : [directory.path]
    return try TestStore(registry: try Registry.load(paths: paths), label: "notes")
}

@Suite("A second domain runs through the same engine with no Swift code")
struct GenericDomainTests {
    @Test("create fills the schema default and the store keeps the note")
    func create() throws {
        let fixture = try notesStore()
        let note = try #require(try fixture.done("createNote", ["title": text("Groceries"), "body": text("oat milk, lentils")]).record)
        #expect(note.entity == noteEntity)
        #expect(note["pinned"] == .bool(false))
        #expect(try fixture.fetch(note.id, noteEntity) == note)
    }

    @Test("update sets, clears back to the default, and leaves unset values alone")
    func update() throws {
        let fixture = try notesStore()
        let note = try #require(try fixture.done("createNote", ["title": text("Groceries"), "body": text("oat milk")]).record)
        try fixture.done("updateNote", ["note": reference(note), "pinned": .set(.bool(true))])
        #expect(try fixture.fetch(note.id, noteEntity)?["pinned"] == .bool(true))
        try fixture.done("updateNote", ["pinned": .cleared, "body": .cleared], references: ["note": "groceries"])
        let after = try #require(try fixture.fetch(note.id, noteEntity))
        #expect(after["pinned"] == .bool(false))
        #expect(after["body"] == nil)
        #expect(after.title == "Groceries")
        _ = try requireFailure(fixture.run("updateNote", ["note": reference(note), "title": .cleared]), .clearedRequired)
    }

    @Test("search finds by text, case- and diacritic-insensitively, and filters by property")
    func search() throws {
        let fixture = try notesStore()
        let groceries = try #require(try fixture.done("createNote", ["title": text("Groceries"), "body": text("Crème fraîche"), "pinned": .set(.bool(true))]).record)
        let ideas = try #require(try fixture.done("createNote", ["title": text("Ideas"), "body": text("creme brulee stand")]).record)
        let byText = try fixture.done("searchNotes", ["text": text("CREME")])
        #expect(Set(byText.records.map(\.id)) == [groceries.id, ideas.id])
        let pinned = try fixture.done("searchNotes", ["pinned": .set(.bool(true))])
        #expect(pinned.records.map(\.id) == [groceries.id])
        let both = try fixture.done("searchNotes", ["text": text("creme"), "pinned": .set(.bool(false))])
        #expect(both.records.map(\.id) == [ideas.id])
    }

    @Test("delete asks for confirmation, deletes when confirmed, and undo brings the note back")
    func deleteAndUndo() throws {
        let fixture = try notesStore()
        let note = try #require(try fixture.done("createNote", ["title": text("Groceries")]).record)
        guard case .needsConfirmation = fixture.run("deleteNote", references: ["note": "groceries"]) else {
            Issue.record("expected needsConfirmation")
            return
        }
        try fixture.done("deleteNote", references: ["note": "groceries"], confirmation: .confirmed)
        #expect(try fixture.fetch(note.id, noteEntity) == nil)
        _ = try requireDone(fixture.engine.undo())
        #expect(try fixture.fetch(note.id, noteEntity) == note)
    }

    @Test("unknown parameters get a suggestion in any domain")
    func unknownParameter() throws {
        let fixture = try notesStore()
        let error = try requireFailure(fixture.run("createNote", ["title": text("x"), "pined": .set(.bool(true))]), .unknownParameter)
        #expect(error.suggestion == "pinned")
    }

    @Test("the notes domain and the calendar domain share one store and one engine")
    func twoDomains() throws {
        let fixture = try notesStore(alongsideCalendar: true)
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Market", start: "2026-06-20T09:00:00+02:00[Europe/Berlin]")
        let note = try #require(try fixture.done("notes.createNote", ["title": text("Market list")]).record)
        #expect(try fixture.fetch(event.id)?.title == "Market")
        #expect(try fixture.fetch(note.id, noteEntity)?.title == "Market list")
        #expect(try fixture.search("market").map(\.id) == [event.id])
        #expect(try fixture.search("market", noteEntity).map(\.id) == [note.id])
        try fixture.reopen()
        #expect(try fixture.fetch(note.id, noteEntity) == note)
    }
}
