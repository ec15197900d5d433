import Foundation
import Testing
import TestSupport

@Suite struct HelpTests {
    @Test func encodeHelpDocumentsTheUserCardForm() throws {
        let result = try avpipe(["encode", "--help"])
        #expect(result.status == 0)
        for option in ["--in", "--out", "--bitrate", "--realtime", "--format", "--overwrite"] {
            #expect(result.stdoutText.contains(option), "help lacks \(option)")
        }
    }

    @Test func versionPrints() throws {
        let result = try avpipe(["--version"])
        #expect(result.status == 0)
        #expect(!result.stdoutText.isEmpty)
    }

    /// The README's exit-code table and `avpipe --help` list the same codes.
    @Test func exitCodesInTheReadmeMatchTheHelp() throws {
        let readme = try String(contentsOfFile: Locations.packageRoot + "/README.md", encoding: .utf8)
        let table = try #require(readme.components(separatedBy: "<!-- exit-codes").dropFirst().first?
            .components(separatedBy: "<!-- /exit-codes -->").first)
        let documented = table.split(separator: "\n").compactMap { line -> Int? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            return cells.first.flatMap { Int($0) }
        }
        let help = try avpipe(["--help"]).stdoutText.replacingOccurrences(of: "\n", with: " ")
        let section = try #require(help.components(separatedBy: "Exit codes:").dropFirst().first?.components(separatedBy: "USAGE").first)
        let listed = section.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
        #expect(documented == [0, 64, 66, 69, 70, 73, 130, 143])
        #expect(listed == documented, "help lists \(listed)")
    }
}
