import Foundation
import Testing
import TestSupport
@testable import AVPipeline

/// Inputs the fuzz harnesses (scripts/fuzz) flagged, kept as regression tests. The JSON harness's
/// findings were in its oracle — swift-corelibs-foundation's parser drops U+FEFF inside strings and
/// misreads extreme exponents — so these pin what our writer emits against Python's `json`, a
/// parser that reads them right.
@Suite struct FuzzRegressionTests {
    static func pythonReads(_ text: String) throws -> String {
        let script = "import json,sys; v=json.load(sys.stdin); print(repr(v))"
        let result = try Subprocess.run("python3", ["-c", script], stdin: Data(text.utf8))
        guard result.status == 0 else { throw TestFailure("python3 rejects \(text): \(result.stderrText)") }
        return result.stdoutText.trimmingCharacters(in: .newlines)
    }

    @Test func byteOrderMarkInsideAStringSurvives() throws {
        let value = JSONValue.object([("i\u{01}\t\u{FEFF}\u{FF00}\u{00}\u{07}\u{00}", .null), ("", .int(7_089_347_948_187_540_992))])
        let text = value.text()
        #expect(text.unicodeScalars.contains("\u{FEFF}"))
        // Python re-encodes what it read with ASCII escapes: every scalar arrived.
        let script = "import json,sys; print(json.dumps(json.load(sys.stdin)))"
        let result = try Subprocess.run("python3", ["-c", script], stdin: Data(text.utf8))
        #expect(result.stdoutText == #"{"i\u0001\t\ufeff\uff00\u0000\u0007\u0000": null, "": 7089347948187540992}"# + "\n")
    }

    @Test func extremeDoublesAreWrittenInShortestRoundTripForm() throws {
        for number in [1.9075660083236515e-106, 3.3598458493070346e+87, Double.leastNonzeroMagnitude, -0.0, 1.7976931348623157e308] {
            let text = JSONValue.double(number).text()
            #expect(Double(text) == number, "\(text)")
            #expect(try Self.pythonReads("[\(text)]") == "[\(Self.pythonRepr(number))]")
        }
        #expect(JSONValue.double(.nan).text() == "null" && JSONValue.double(.infinity).text() == "null")
    }

    static func pythonRepr(_ number: Double) -> String {
        switch number {
        case 1.9075660083236515e-106: "1.9075660083236515e-106"
        case 3.3598458493070346e+87: "3.3598458493070346e+87"
        case 5e-324: "5e-324"
        case 1.7976931348623157e308: "1.7976931348623157e+308"
        default: "-0.0"
        }
    }
}
