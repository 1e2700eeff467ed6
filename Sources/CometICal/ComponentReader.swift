import Foundation

/// A component as read from the file, before libical sees it: its own property lines and its
/// children, with the lines they came from.
struct RawComponent {
    let name: String
    let beginLine: Int
    /// Set when a problem was reported inside it: the component is refused, not imported partly.
    var isTainted = false
    var properties: [ContentLine] = []
    var children: [RawComponent] = []
    var endLine: Int = 0

    /// The first value of a property of this component (not of children).
    func value(_ property: String) -> String? {
        properties.first { $0.name == property }?.value
    }

    func line(of property: String) -> Int? {
        properties.first { $0.name == property }?.line
    }

    /// The component as iCalendar text (unfolded lines, CRLF) for libical.
    var text: String {
        var lines = ["BEGIN:\(name)"]
        append(into: &lines)
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private func append(into lines: inout [String]) {
        lines.append(contentsOf: properties.map(\.text))
        for child in children {
            lines.append("BEGIN:\(child.name)")
            child.append(into: &lines)
        }
        lines.append("END:\(name)")
    }
}

/// What the reader finds, in file order.
enum ReaderEvent {
    /// A VCALENDAR begins (or bare components begin outside one).
    case calendarBegins(line: Int)
    /// A VCALENDAR's own properties so far are known (sent before its first component).
    case calendarProperty(ContentLine)
    /// A complete top-level component inside the calendar (VEVENT, VTODO, VTIMEZONE, …).
    case component(RawComponent)
    case calendarEnds
    case problem(ICalProblem)
}

/// Turns content lines into components, checking the BEGIN/END structure itself so every
/// structural problem has a line: END without BEGIN, mismatched END, a VEVENT inside a VEVENT,
/// a component never closed, text outside any component.
struct ComponentReader {
    private var scanner: ContentLineScanner
    private var stack: [RawComponent] = []
    private var inCalendar = false
    private var calendarBeginLine = 1
    private var implicitCalendar = false
    private var sawAnything = false
    private var queue: [ReaderEvent] = []
    private var done = false

    /// Components that may not contain themselves or each other.
    static let itemComponents: Set<String> = ["VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VAVAILABILITY"]

    init(scanner: ContentLineScanner) {
        self.scanner = scanner
    }

    var bytesRead: Int { scanner.bytesRead }

    mutating func next() -> ReaderEvent? {
        while queue.isEmpty, !done { step() }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    private mutating func step() {
        guard let result = scanner.next() else {
            finish()
            return
        }
        let line: ContentLine
        switch result {
        case .failure(let problem):
            queue.append(.problem(problem))
            taintInnermostItem()
            return
        case .success(let found):
            line = found
        }
        sawAnything = true
        let name = line.name
        if name == "BEGIN" {
            begin(line.value.trimmedBlanks.uppercased(), at: line.line)
        } else if name == "END" {
            end(line.value.trimmedBlanks.uppercased(), at: line.line)
        } else if var top = stack.popLast() {
            top.properties.append(line)
            stack.append(top)
        } else if inCalendar {
            queue.append(.calendarProperty(line))
        } else {
            queue.append(.problem(ICalProblem(line: line.line, uid: nil, message: "'\(line.text.prefix(40))' is outside any component; an iCalendar file starts with BEGIN:VCALENDAR")))
            // One such complaint is enough for a file that is not iCalendar at all.
            while case .success(let skipped)? = scanner.next() {
                if skipped.name == "BEGIN" {
                    begin(skipped.value.trimmedBlanks.uppercased(), at: skipped.line)
                    return
                }
            }
        }
    }

    private mutating func begin(_ component: String, at line: Int) {
        if component == "VCALENDAR", stack.isEmpty {
            if implicitCalendar {
                queue.append(.calendarEnds)
                implicitCalendar = false
            }
            if inCalendar {
                queue.append(.problem(ICalProblem(line: line, uid: nil, message: "BEGIN:VCALENDAR inside a VCALENDAR that was never closed")))
            }
            inCalendar = true
            calendarBeginLine = line
            queue.append(.calendarBegins(line: line))
            return
        }
        if !inCalendar, stack.isEmpty {
            // Bare components without VCALENDAR around them: read them as one calendar.
            inCalendar = true
            implicitCalendar = true
            queue.append(.calendarBegins(line: line))
        }
        if ComponentReader.itemComponents.contains(component), stack.contains(where: { ComponentReader.itemComponents.contains($0.name) }) {
            let outer = stack.last { ComponentReader.itemComponents.contains($0.name) }
            queue.append(.problem(ICalProblem(line: line, uid: outer.flatMap { $0.value("UID") },
                                              message: "BEGIN:\(component) inside \(outer?.name ?? "a component") (started on line \(outer?.beginLine ?? 0)); components of this kind cannot be nested, so the outer one is refused with everything in it")))
            taintInnermostItem()
        }
        stack.append(RawComponent(name: component, beginLine: line))
    }

    /// The innermost item component (VEVENT, …) open now is refused.
    private mutating func taintInnermostItem() {
        if let index = stack.lastIndex(where: { ComponentReader.itemComponents.contains($0.name) }) { stack[index].isTainted = true }
    }

    private mutating func end(_ component: String, at line: Int) {
        if component == "VCALENDAR", !stack.isEmpty, inCalendar {
            // END:VCALENDAR while components are open: they were never closed; the calendar ends.
            for open in stack.reversed() {
                queue.append(.problem(ICalProblem(line: open.beginLine, uid: open.value("UID"),
                                                  message: "BEGIN:\(open.name) is never closed (END:VCALENDAR on line \(line) comes first)")))
            }
            stack.removeAll()
            inCalendar = false
            implicitCalendar = false
            queue.append(.calendarEnds)
            return
        }
        if component == "VCALENDAR", stack.isEmpty {
            guard inCalendar else {
                queue.append(.problem(ICalProblem(line: line, uid: nil, message: "END:VCALENDAR without BEGIN:VCALENDAR")))
                return
            }
            inCalendar = false
            implicitCalendar = false
            queue.append(.calendarEnds)
            return
        }
        guard var top = stack.popLast() else {
            queue.append(.problem(ICalProblem(line: line, uid: nil, message: "END:\(component) without a matching BEGIN:\(component)")))
            return
        }
        guard top.name == component else {
            queue.append(.problem(ICalProblem(line: line, uid: top.value("UID"),
                                              message: "END:\(component) does not close BEGIN:\(top.name) (line \(top.beginLine)); components must end in the order they begin")))
            // Keep the structure: treat it as closing the innermost component.
            top.endLine = line
            attach(top)
            return
        }
        top.endLine = line
        attach(top)
    }

    private mutating func attach(_ component: RawComponent) {
        if var parent = stack.popLast() {
            // A nested item component was already reported; drop it from the parent.
            if !(ComponentReader.itemComponents.contains(component.name) && ComponentReader.itemComponents.contains(parent.name)) {
                parent.children.append(component)
            }
            if component.isTainted, ComponentReader.itemComponents.contains(parent.name) { parent.isTainted = true }
            stack.append(parent)
        } else if !component.isTainted {
            queue.append(.component(component))
        }
    }

    private mutating func finish() {
        done = true
        for open in stack.reversed() {
            queue.append(.problem(ICalProblem(line: open.beginLine, uid: open.value("UID"),
                                              message: "BEGIN:\(open.name) is never closed (no END:\(open.name) before the end of the file); the file may be cut off")))
        }
        stack.removeAll()
        if inCalendar, !implicitCalendar {
            queue.append(.problem(ICalProblem(line: calendarBeginLine, uid: nil, message: "BEGIN:VCALENDAR is never closed (no END:VCALENDAR); the file may be cut off")))
        }
        if inCalendar { queue.append(.calendarEnds) }
        if !sawAnything {
            queue.append(.problem(ICalProblem(line: 1, uid: nil, message: "the file is empty; an iCalendar file starts with BEGIN:VCALENDAR")))
        }
    }
}
