import Foundation
import Testing
@testable import CometSchema

/// Broken JSON and where its error must point.
struct BrokenJSON: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let line: Int
    let column: Int
    let message: String
    var testDescription: String { name }
}

private func broken(_ name: String, _ text: String, at line: Int, _ column: Int, _ message: String) -> BrokenJSON {
    BrokenJSON(name: name, text: text, line: line, column: column, message: message)
}

@Suite("Strict JSON parser and deterministic writer")
struct JSONParserTests {
    static let brokenDocuments: [BrokenJSON] = [
        broken("trailing comma in an object", #"{"a": 1,}"#, at: 1, 9, "expected a string key in object, found '}'"),
        broken("trailing comma in an object on its own line", "{\n  \"a\": 1,\n}", at: 3, 1, "expected a string key"),
        broken("trailing comma in an array", "[1, 2,]", at: 1, 7, "expected a JSON value, found ']'"),
        broken("missing colon", #"{"a" 1}"#, at: 1, 6, "expected ':' after key \"a\", found '1'"),
        broken("missing colon on a later line", "{\n  \"name\" \"Ada\"\n}", at: 2, 10, "expected ':' after key \"name\""),
        broken("unterminated string value", #"{"a": "abc"#, at: 1, 7, "unterminated string"),
        broken("unterminated string on a later line", "{\n  \"note\": \"abc", at: 2, 11, "unterminated string"),
        broken("unterminated key", #"{"abc"#, at: 1, 2, "unterminated string"),
        broken("duplicate key", #"{"a": 1, "a": 2}"#, at: 1, 10, "duplicate key \"a\" in object"),
        broken("duplicate key in a nested object", "{\n  \"x\": {\"k\": 1,\n         \"k\": 2}\n}", at: 3, 10, "duplicate key \"k\""),
        broken("leading zero", "[01]", at: 1, 2, "leading zeros are not allowed"),
        broken("leading zero after a minus", #"{"n": -012}"#, at: 1, 7, "leading zeros are not allowed"),
        broken("bad escape", #""a\x""#, at: 1, 3, "invalid escape '\\x' in string"),
        broken("bad escape later in a line", #"{"path": "C:\Users"}"#, at: 1, 13, "invalid escape '\\U'"),
        broken("short unicode escape", #""\u12G4""#, at: 1, 2, "expected four hex digits after \\u"),
        broken("signed unicode escape", #""\u+123""#, at: 1, 2, "expected four hex digits after \\u"),
        broken("negative unicode escape", #""\u-123""#, at: 1, 2, "expected four hex digits after \\u"),
        broken("unicode escape cut by the end", #""\u12"#, at: 1, 2, "expected four hex digits after \\u"),
        broken("lone high surrogate", #""\ud83d""#, at: 1, 2, "unpaired surrogate"),
        broken("high surrogate before text", #""\ud83dx""#, at: 1, 2, "unpaired surrogate"),
        broken("lone low surrogate", #""\ude00""#, at: 1, 2, "unpaired surrogate"),
        broken("high surrogate with a non-surrogate", #""\ud83d\u0041""#, at: 1, 2, "invalid low surrogate"),
        broken("raw control character", "\"a\tb\"", at: 1, 3, "control character in string; escape it as \\u0009"),
        broken("raw line break in a string", "[\"a\nb\"]", at: 1, 4, "control character in string"),
        broken("empty input", "", at: 1, 1, "expected a JSON value, found end of input"),
        broken("only whitespace", " \n ", at: 2, 2, "expected a JSON value, found end of input"),
        broken("misspelt literal", "tru", at: 1, 1, "expected 'true'"),
        broken("missing comma in an array", "[1 2]", at: 1, 4, "expected ',' or ']' in array, found '2'"),
        broken("missing comma in an object", #"{"a": 1 "b": 2}"#, at: 1, 9, "expected ',' or '}' in object"),
        broken("unquoted key", "{a: 1}", at: 1, 2, "expected a string key in object, found 'a'"),
        broken("single quotes", "['a']", at: 1, 2, "expected a JSON value, found '''"),
        broken("two values", "1 2", at: 1, 3, "unexpected text after the JSON value"),
        broken("lone minus", "-", at: 1, 2, "expected a digit"),
        broken("no digits after the point", "1.", at: 1, 3, "expected digits after '.'"),
        broken("no digits in the exponent", "1e+", at: 1, 4, "expected digits in exponent"),
        broken("number too large", "1e400", at: 1, 1, "number 1e400 is out of range"),
        broken("unclosed array", "[1, 2", at: 1, 6, "expected ',' or ']' in array, found end of input"),
        broken("columns count characters, not bytes", #"{"é": x}"#, at: 1, 7, "expected a JSON value, found 'x'"),
        broken("columns after an emoji", #"["😀", x]"#, at: 1, 7, "expected a JSON value, found 'x'"),
        broken("CRLF line ends", "{\r\n\"a\" 1}", at: 2, 5, "expected ':'"),
    ]

    @Test("Broken JSON is refused with the line and column of the problem", arguments: brokenDocuments)
    func brokenDocument(_ example: BrokenJSON) throws {
        let error = try #require(jsonError(example.text))
        #expect(error.line == example.line)
        #expect(error.column == example.column)
        #expect(error.message.contains(example.message), "\(error.message)")
        #expect(error.description == "\(error.line):\(error.column): \(error.message)")
    }

    @Test("Nesting is allowed to the limit and refused one level deeper, at that bracket")
    func deepNesting() throws {
        let limit = JSONParser.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(jsonError(deepest) == nil)
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        let error = try #require(jsonError(tooDeep))
        #expect(error.line == 1)
        #expect(error.column == limit + 1)
        #expect(error.message.contains("nested more than \(limit) levels"))
        // Objects count too, and hostile input far beyond the limit fails the same way.
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(jsonError(objects)?.message.contains("nested more than") == true)
        #expect(jsonError(String(repeating: "[", count: 100_000))?.column == limit + 1)
    }

    @Test("Numbers that are integers stay integers; others are doubles")
    func numbers() throws {
        let value = try json("[1, -2, 0, -0, 1.0, 1e3, -0.5, 2.5E-3, 9223372036854775807, -9223372036854775808, 9223372036854775808]")
        #expect(value == .array([
            .int(1), .int(-2), .int(0), .int(0), .double(1), .double(1000), .double(-0.5), .double(0.0025),
            .int(Int.max), .int(Int.min), .double(9_223_372_036_854_775_808),
        ]))
    }

    @Test("Strings decode every escape, including surrogate pairs")
    func escapes() throws {
        #expect(try json(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try json(#""\u00e9\u4E2D\u0041\u002f""#) == .string("é中A/"))
        #expect(try json(#""\ud83d\ude00 \uD83C\uDF19""#) == .string("😀 🌙"))
        #expect(try json(#""\u0000""#) == .string("\u{0}"))
        #expect(try json("\"raw é 中 😀\"") == .string("raw é 中 😀"))
    }

    @Test("Strings without escapes read whole, and strings that start plain and then escape or break read as before")
    func plainStrings() throws {
        #expect(try json(#"["", "a", "raw é 中 😀", "plain then \n escape", "x"]"#) == .array(["", "a", "raw é 中 😀", "plain then \n escape", "x"]))
        #expect(try json(#"{"key é": "value 😀", "k2": ""}"#) == .object(JSONObject([("key é", "value 😀"), ("k2", "")])))
        #expect(throws: JSONParseError.self) { try JSONParser.parse("\"plain then a raw\ncontrol\"") }
        #expect(throws: JSONParseError.self) { try JSONParser.parse("\"plain and unterminated") }
    }

    @Test("Objects keep their keys in document order and literals parse")
    func objectsAndLiterals() throws {
        let value = try json(" {\"b\": true, \"a\": [null, false], \"c\": {}, \"d\": []} ")
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a", "c", "d"])
        #expect(value["a"] == [nil, false])
        #expect(value["b"] == true)
        #expect(value["c"] == .object(JSONObject()))
        #expect(value["d"] == [])
        #expect(value["missing"] == nil)
        #expect(try JSONParser.parse(bytes: Array(#"{"x": "é"}"#.utf8)) == ["x": "é"])
    }

    // MARK: JSONObject and JSONValue

    @Test("A JSON object keeps insertion order; replacing keeps the place, removing forgets it")
    func objectOrder() {
        var object = JSONObject([("z", 1), ("a", 2)])
        object["m"] = 3
        #expect(object.keys == ["z", "a", "m"])
        object["z"] = 10
        #expect(object.keys == ["z", "a", "m"])
        #expect(object["z"] == 10)
        object["a"] = nil
        #expect(object.keys == ["z", "m"])
        #expect(object.count == 2)
        #expect(object.map(\.key) == ["z", "m"])
        object["a"] = 4
        #expect(object.keys == ["z", "m", "a"])
        // Null is a value, not a removal.
        object["n"] = JSONValue.null
        #expect(object.keys.last == "n")
        #expect(JSONValue.string("x").stringValue == "x")
        #expect(JSONValue.int(1).objectValue == nil)
        #expect(JSONValue.int(1)["key"] == nil)
        #expect([JSONValue.null, 1, 1.5, "s", true, [], [:]].map(\.kindName) ==
                ["null", "an integer", "a number", "a string", "a boolean", "an array", "an object"])
    }

    // MARK: Writer

    @Test("The writer escapes quotes, backslashes and control characters")
    func writerEscapes() {
        #expect(JSONWriter.compact("quote \" backslash \\ slash /") == #""quote \" backslash \\ slash /""#)
        #expect(JSONWriter.compact("\n\r\t") == #""\n\r\t""#)
        #expect(JSONWriter.compact("\u{0}\u{1}\u{8}\u{C}\u{1B}\u{1F}") == #""\u0000\u0001\u0008\u000C\u001B\u001F""#)
        #expect(JSONWriter.compact("\u{2028}\u{2029}") == #""\u2028\u2029""#)
        #expect(JSONWriter.compact("é 中 😀 \u{7F}") == "\"é 中 😀 \u{7F}\"")
        #expect(JSONWriter.compact(["ke\"y": "v"]) == #"{"ke\"y":"v"}"#)
    }

    @Test("The writer copies strings without escapes whole, and escapes only what needs it among bytes that look alike")
    func writerCopiesPlainStrings() {
        // “ ” and … share their first UTF-8 byte (E2) with U+2028 and U+2029.
        #expect(JSONWriter.compact("Created “Picnic” …") == "\"Created “Picnic” …\"")
        #expect(JSONWriter.compact("“Picnic”\u{2028}at 12") == "\"“Picnic”\\u2028at 12\"")
        #expect(JSONWriter.compact("ends with E2\u{2029}") == #""ends with E2\u2029""#)
    }

    @Test("The writer prints numbers as JSON numbers")
    func writerNumbers() throws {
        #expect(JSONWriter.compact(2.0) == "2.0")
        #expect(JSONWriter.compact(0.1) == "0.1")
        #expect(JSONWriter.compact(-0.5) == "-0.5")
        #expect(JSONWriter.compact(28.6) == "28.6")
        #expect(JSONWriter.compact(1e20) == "1e+20")
        #expect(JSONWriter.compact(.double(.nan)) == "null")
        #expect(JSONWriter.compact(.double(.infinity)) == "null")
        #expect(JSONWriter.compact(.int(Int.min)) == "-9223372036854775808")
        for number in [2.0, 0.1, -0.5, 1e20, 1e-7, 123_456.789, 1e15, -1e300] {
            #expect(try JSONParser.parse(JSONWriter.compact(.double(number))) == .double(number), "\(number)")
        }
    }

    @Test("What the writer prints, the parser reads back unchanged")
    func writeThenParse() throws {
        let value: JSONValue = [
            "text": "line\nbreak \"quoted\" \u{1} é 😀 \u{2028}",
            "numbers": [0, -1, 2.5, 1e-7, 9_007_199_254_740_993],
            "nested": ["empty": [:], "list": [], "null": nil, "flag": false],
        ]
        #expect(try JSONParser.parse(JSONWriter.compact(value)) == value)
        #expect(try JSONParser.parse(JSONWriter.pretty(value)) == value)
    }

    @Test("Pretty output uses two spaces, keeps key order and is stable")
    func prettyOutput() throws {
        let value: JSONValue = ["name": "Ada", "tags": [], "meta": [:], "list": [1, ["a": nil]]]
        let expected = """
        {
          "name": "Ada",
          "tags": [],
          "meta": {},
          "list": [
            1,
            {
              "a": null
            }
          ]
        }
        """
        #expect(JSONWriter.pretty(value) == expected)
        #expect(JSONWriter.pretty(try JSONParser.parse(expected)) == expected)
        #expect(JSONWriter.compact(value) == #"{"name":"Ada","tags":[],"meta":{},"list":[1,{"a":null}]}"#)
        #expect(JSONWriter.pretty("x") == #""x""#)
        #expect(JSONWriter.pretty([]) == "[]")
        #expect(!JSONWriter.pretty(value).contains(" \n"))
    }
}
