extension Diagnostic {
    /// `{"code": "E100", "severity": "error", "file": …, "line": …, "column": …, "message": …}`
    public var json: JSONValue {
        var object = JSONObject()
        object["code"] = .string(id.rawValue)
        object["severity"] = .string(severity.rawValue)
        object["file"] = .string(location.path)
        object["line"] = .int(location.line)
        object["column"] = .int(location.column)
        object["message"] = .string(message)
        object["suggestion"] = suggestion.map(JSONValue.string)
        if !notes.isEmpty {
            object["notes"] = .array(notes.map { note in
                var member = JSONObject()
                member["message"] = .string(note.message)
                if let location = note.location {
                    member["file"] = .string(location.path)
                    member["line"] = .int(location.line)
                    member["column"] = .int(location.column)
                }
                return .object(member)
            })
        }
        return .object(object)
    }
}
