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
}
