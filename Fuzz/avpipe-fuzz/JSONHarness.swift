import Foundation

/// Bytes → a `JSONValue` tree (shape, numbers and strings all taken from the bytes, control
/// characters and non-ASCII included) → `text()` → parsed back by Foundation's `JSONSerialization`,
/// an independent parser, which must give the same tree.
enum JSONHarness {
    static func run(_ bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        let value = reader.value(depth: 0)
        let text = value.text()
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        } catch {
            finding("JSONSerialization rejects our text: \(error)\n\(text)")
        }
        if !matches(value, parsed) { finding("round trip differs:\n\(text)\nparsed: \(parsed)") }
    }

    static func matches(_ value: JSONValue, _ parsed: Any) -> Bool {
        switch value {
        case .null: return parsed is NSNull
        case .bool(let flag): return (parsed as? Bool) == flag
        case .int(let number): return (parsed as? NSNumber)?.int64Value == Int64(number)
        case .double(let number):
            guard number.isFinite else { return parsed is NSNull }
            guard let back = (parsed as? NSNumber)?.doubleValue else { return false }
            // Our text is the shortest round-trip form (Swift's); swift-corelibs-foundation's parser
            // lands a little away on extreme exponents (1.9075660083236515e-106, 3.3598458493070346e+87
            // — both found by this harness), so only the digits are held to account.
            return back == number || abs(back - number) <= max(1e-14 * abs(number), 4 * number.ulp)
        case .string(let string): return (parsed as? String).map(withoutBOM) == withoutBOM(string)
        case .array(let values):
            guard let array = parsed as? [Any], array.count == values.count else { return false }
            return zip(values, array).allSatisfy { matches($0, $1) }
        case .object(let members):
            guard let dictionary = parsed as? [String: Any], dictionary.count == members.count else { return false }
            let object = Dictionary(dictionary.map { (withoutBOM($0.key), $0.value) }) { first, _ in first }
            return members.allSatisfy { key, member in object[withoutBOM(key)].map { matches(member, $0) } ?? false }
        }
    }

    /// swift-corelibs-foundation's parser drops U+FEFF inside strings (found by this harness: our
    /// text keeps it, which RFC 8259 allows), so the comparison ignores it.
    static func withoutBOM(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\u{FEFF}" }))
    }

    struct ByteReader {
        let bytes: [UInt8]
        var cursor = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func byte() -> UInt8 {
            defer { cursor += 1 }
            return cursor < bytes.count ? bytes[cursor] : 0
        }

        mutating func string() -> String {
            let count = Int(byte() % 24)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<count {
                let raw = byte()
                // Mostly ASCII (control characters included), sometimes a wider scalar.
                let value = raw >= 0xF0 ? UInt32(raw) << 8 | UInt32(byte()) : UInt32(raw & 0x7F)
                scalars.append(Unicode.Scalar(value) ?? "?")
            }
            return String(scalars)
        }

        mutating func value(depth: Int) -> JSONValue {
            let kind = byte() % (depth < 6 ? 7 : 5)
            switch kind {
            case 0: return .null
            case 1: return .bool(byte() & 1 == 1)
            case 2:
                var number: UInt64 = 0
                for _ in 0..<8 { number = number << 8 | UInt64(byte()) }
                return .int(Int(truncatingIfNeeded: number))
            case 3:
                var number: UInt64 = 0
                for _ in 0..<8 { number = number << 8 | UInt64(byte()) }
                return .double(Double(bitPattern: number))
            case 4: return .string(string())
            case 5: return .array((0..<Int(byte() % 5)).map { _ in value(depth: depth + 1) })
            default:
                var members: [(String, JSONValue)] = []
                var keys = Set<String>()
                for _ in 0..<Int(byte() % 5) {
                    let key = string()
                    // Duplicate keys are legal JSON but a dictionary keeps one: the writer never makes them.
                    if keys.insert(JSONHarness.withoutBOM(key)).inserted { members.append((key, value(depth: depth + 1))) }
                }
                return .object(members)
            }
        }
    }
}
