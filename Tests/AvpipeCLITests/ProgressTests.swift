import Foundation
import Testing
import TestSupport

@Suite struct ProgressTests {
    /// On a terminal (a pty from `script`), encode redraws one status line with percent and speed.
    @Test func progressIsShownOnATerminal() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 2)
        let command = "'\(Locations.avpipe)' encode --in '\(folder.file("in.wav"))' --out '\(folder.file("o.aac"))' --realtime"
        let result = try Subprocess.run("script", ["-qefc", command, "/dev/null"])
        #expect(result.status == 0, "\(result.stdoutText)")
        let screen = result.stdoutText
        #expect(screen.contains("%"), "no percent on the terminal: \(screen)")
        #expect(screen.contains("× real time"))
        #expect(screen.contains("100%"))
        #expect(try Probe.run(folder.file("o.aac")).string("codec_name") == "aac")
    }
}
