/// A JSON value and its text, enough for `MediaReport.json` without Foundation (startup time counts).
enum JSONValue {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Keys keep the given order, so the output is stable.
    case object([(String, JSONValue)])

    static func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
    static func optional(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// Indented text, two spaces per level.
    func text(indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent + 1)
        let closing = String(repeating: "  ", count: indent)
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return value.isFinite ? "\(value)" : "null"
        case .string(let value): return Self.quoted(value)
        case .array(let values):
            if values.isEmpty { return "[]" }
            return "[\n" + values.map { pad + $0.text(indent: indent + 1) }.joined(separator: ",\n") + "\n\(closing)]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            return "{\n" + members.map { pad + Self.quoted($0.0) + ": " + $0.1.text(indent: indent + 1) }
                .joined(separator: ",\n") + "\n\(closing)}"
        }
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
