import Foundation
import Testing
import TestSupport

/// Every command that opens inputs refuses crafted playlists and concat lists by default: exit 66,
/// one `refused` line, no output, no network connection.
@Suite struct InputPolicyCLITests {
    /// Each command with `input` in its input position and its outputs inside `folder`.
    static func commands(_ input: String, _ folder: TemporaryDirectory) -> [[String]] {
        [
            ["probe", input],
            ["probe", "--json", input],
            ["demux", input, "--audio", folder.file("out.aac")],
            ["remux", input, folder.file("out.m4a")],
            ["mux", "--audio", input, "--out", folder.file("out.mp4")],
            ["encode", "--in", input, "--out", folder.file("out.aac")],
            ["decode", input, "--out", folder.file("out.wav")],
            ["play", input],
        ]
    }

    @Test func craftedInputsAreRefusedByEveryCommand() throws {
        let folder = TemporaryDirectory()
        let media = TemporaryDirectory()
        let segment = try IndirectInputs.segment(media.file("a.ts"))
        let listener = try LoopbackListener()
        let inputs = [
            try IndirectInputs.playlist(media, "local.m3u8", entries: [segment]),
            try IndirectInputs.playlist(media, "passwd.m3u8", entries: ["/etc/passwd"]),
            try IndirectInputs.playlist(media, "net.m3u8", entries: [listener.url()]),
            try IndirectInputs.concatList(media, "local.ffconcat", entries: ["a.ts"]),
            try IndirectInputs.concatList(media, "passwd.txt", entries: ["/etc/passwd"]),
        ]
        for input in inputs {
            for arguments in Self.commands(input, folder) {
                let result = try avpipe(arguments)
                let label = arguments.joined(separator: " ")
                #expect(result.status == 66, "\(label): \(result.stderrText)")
                #expect(result.stderrText.hasPrefix("avpipe: error: '\(input)': refused:"), "\(label): \(result.stderrText)")
                #expect(result.stderrText.split(separator: "\n").count == 1, "\(label): \(result.stderrText)")
                #expect(result.stdout.isEmpty, "\(label)")
                #expect(folder.contents().isEmpty, "\(label) left \(folder.contents())")
            }
        }
        #expect(!listener.connectionArrived, "a crafted input made avpipe connect to the network")
    }

    @Test func allowIndirectionOpensLocalFilesOnly() throws {
        let media = TemporaryDirectory()
        _ = try IndirectInputs.segment(media.file("a.ts"))
        let local = try IndirectInputs.playlist(media, "local.m3u8", entries: ["a.ts"])
        let allowed = try avpipe(["probe", "--json", "--allow-indirection", local])
        #expect(allowed.status == 0, "\(allowed.stderrText)")
        #expect(allowed.stdoutText.contains("\"aac\""))
        let out = media.file("out.aac")
        let demuxed = try avpipe(["demux", "--allow-indirection", local, "--audio", out])
        #expect(demuxed.status == 0, "\(demuxed.stderrText)")
        #expect(fileSize(out) > 5_000)

        let listener = try LoopbackListener()
        let network = try IndirectInputs.playlist(media, "net.m3u8", entries: [listener.url()])
        let refused = try avpipe(["probe", "--allow-indirection", network])
        #expect(refused.status == 66)
        #expect(refused.stderrText.contains(listener.url()), "\(refused.stderrText)")
        #expect(!listener.connectionArrived)
    }

    @Test func helpDocumentsTheFlag() throws {
        for command in ["probe", "demux", "remux", "mux", "encode", "decode", "play"] {
            #expect(try avpipe([command, "--help"]).stdoutText.contains("--allow-indirection"), "\(command)")
        }
    }
}
