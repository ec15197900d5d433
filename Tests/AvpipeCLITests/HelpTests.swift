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

    /// `record --help` says what a recording uses (x264's veryfast and zerolatency, 4:2:0) and
    /// every container its --format takes, flv too (each one listed is accepted).
    @Test func recordHelpSaysItsDefaultsAndFormats() throws {
        let help = try avpipe(["record", "--help"]).stdoutText.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for words in ["for a recording veryfast", "for a recording zerolatency", "a recording's yuv420p"] {
            #expect(help.contains(words), "record --help lacks '\(words)'")
        }
        let formats = try #require(help.components(separatedBy: "does not say it (").dropFirst().first?.components(separatedBy: ")").first)
        let listed = formats.components(separatedBy: ", ")
        #expect(listed.contains("flv"), "\(listed)")
        for format in listed {
            // Parsed, then refused for the zero duration (validated after --format): never for the format.
            let result = try avpipe(["record", "--format", format, "--out", "/nonexistent/x", "--duration", "0"])
            #expect(result.status == 64 && result.stderrText.contains("--duration") && !result.stderrText.contains("--format"),
                    "--format \(format): \(result.stderrText)")
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
