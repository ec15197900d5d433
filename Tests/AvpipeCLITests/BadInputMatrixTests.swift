import Foundation
import Testing
import TestSupport

/// Issue #7.1: every subcommand against every bad input, option and output in `BadInputMatrix`.
/// Whatever goes wrong, avpipe must end with one `avpipe: error: …` line and the documented exit
/// code — never a crash — and leave the folder exactly as it found it: no partial output, no
/// temporary file, existing files untouched. A run that succeeds (a damaged input can still hold
/// a readable prefix) must leave outputs an independent reader (ffprobe) accepts.
@Suite struct BadInputMatrixTests {
    @Test(arguments: BadInputMatrix.cases)
    func failsCleanlyOrSucceedsCleanly(_ row: MatrixCase) throws {
        let folder = TemporaryDirectory("avpipe-matrix")
        let invocation = try row.arrange(folder)
        let before = FolderSnapshot(folder.path)
        let (result, leftovers) = try run(invocation)
        let context = "avpipe \(invocation.arguments.joined(separator: " "))\nexit \(result.status), stderr: \(result.stderrText)"

        #expect(!result.diedOfSignal, "died of signal \(result.status): \(context)")
        #expect(!result.stderrText.contains("Fatal error"), "\(context)")
        switch row.outcome {
        case .exit(let code): #expect(result.status == code, "\(context)")
        case .succeedsOrExits(let code): #expect(result.status == 0 || result.status == code, "\(context)")
        }

        // Besides the one error line, stderr may only hold notices and warnings (a skipped damaged
        // packet, an ignored video track).
        let lines = result.stderrText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let errorLines = lines.filter { !$0.hasPrefix("avpipe: notice: ") && !$0.hasPrefix("avpipe: warning: ") }
        if result.status == 0 {
            #expect(errorLines.isEmpty, "\(context)")
            for output in invocation.outputs {
                #expect(fileExists(output), "missing output \(output): \(context)")
                if fileExists(output) { #expect(throws: Never.self, "\(context)") { try Probe.run(output) } }
                if output.hasSuffix(".aac") && fileExists(output) { try expectWholeADTSFrames(output, context) }
            }
            let hidden = FolderSnapshot(folder.path).names.filter { $0.split(separator: "/").contains { $0.hasPrefix(".") } }
            #expect(hidden.isEmpty, "temporary files left: \(hidden): \(context)")
        } else {
            #expect(errorLines.count == 1 && lines.last?.hasPrefix("avpipe: error: ") == true, "one error line, last: \(context)")
            #expect(result.stdout.isEmpty, "nothing on standard output: \(context)")
            let after = FolderSnapshot(folder.path)
            #expect(after == before, "folder changed: before [\(before)] after [\(after)]: \(context)")
            #expect(leftovers.isEmpty, "left on the full disk: \(leftovers): \(context)")
        }
    }

    /// A salvaged ADTS file holds whole frames only (a cut last frame is left out), which our own
    /// header parser and faad, an independent decoder, both read without complaint.
    private func expectWholeADTSFrames(_ path: String, _ context: String) throws {
        #expect(throws: Never.self, "\(context)") { _ = try ADTSParser.headers(try fileBytes(path)) }
        let faad = try Subprocess.run("faad", ["-o", "/dev/null", path])
        let log = faad.stderrText + faad.stdoutText
        #expect(faad.status == 0 && !log.lowercased().contains("error"), "faad: \(log)\n\(context)")
    }

    /// Runs the invocation its way; `leftovers` is what a full-disk run left in its output folder.
    private func run(_ invocation: MatrixCase.Invocation) throws -> (ProcessResult, leftovers: [String]) {
        let command = [Locations.avpipe] + invocation.arguments
        let outputFolder = invocation.outputs.first.map { ($0 as NSString).deletingLastPathComponent }
        switch invocation.runner {
        case .plain:
            return (try Subprocess.run(command[0], Array(command.dropFirst()), stdin: invocation.standardInput,
                                       environment: invocation.environment), [])
        case .readOnlyOutputFolder:
            return (try RestrictedOutput.runWithReadOnlyFolder(try #require(outputFolder), command), [])
        case .fullDisk:
            return try RestrictedOutput.runWithFullDisk(try #require(outputFolder), bytes: 65_536, command)
        case .fileSizeLimit:
            // ThreadSanitizer's runtime itself dies of SIGBUS under `ulimit -f`; there the row uses
            // the small disk instead (scripts/sanitize sets TSAN_OPTIONS).
            let underTSan = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil
            return try RestrictedOutput.runWithFullDisk(try #require(outputFolder), bytes: 65_536, fileSizeLimit: !underTSan, command)
        }
    }

    /// The table really covers every subcommand and every container (a guard against rows
    /// silently dropping out when the table is edited).
    @Test func coversEverySubcommandAndContainer() {
        let names = BadInputMatrix.cases.map(\.name)
        for command in Subcommand.allCases {
            #expect(names.contains { $0.hasPrefix("\(command) ") }, "no row for \(command)")
        }
        for media in SampleMedia.allCases {
            #expect(names.contains { $0.contains("\(media.rawValue) cut at") }, "no truncation of \(media)")
        }
        #expect(Set(names).count == names.count, "row names must be unique")
        print("bad-input matrix: \(names.count) rows")
    }
}
