import Foundation
import Testing
import TestSupport

/// A raw stream with a broken frame header in the middle: FFmpeg resynchronizes and drops the frame
/// without a word, so avpipe must notice the skipped bytes itself and refuse the input.
@Suite struct DamagedElementaryStreamTests {
    /// An ADTS file whose 40th frame has its sync word overwritten (found with the test's own parser).
    /// `dropped`: whether this system's FFmpeg drops the damaged frame (5.1) or passes it on (7.1).
    static func damagedADTS(in folder: TemporaryDirectory) throws -> (good: String, bad: String, dropped: Bool) {
        let good = folder.file("good.aac"), bad = folder.file("bad.aac")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
                                 "-c:a", "aac", "-b:a", "64k", good])
        var bytes = try fileBytes(good)
        let frames = try ADTSParser.headers(bytes)
        let offset = frames.prefix(40).map(\.frameLength).reduce(0, +)
        bytes[offset] = 0x12
        bytes[offset + 1] = 0x34
        try Data(bytes).write(to: URL(fileURLWithPath: bad))
        // The oracle: FFmpeg 5.1's ffprobe silently reads one packet fewer than the intact file holds;
        // 7.1's reads them all, the damaged one cut short.
        let packets = try Probe.packets(bad).count
        #expect(packets == frames.count - 1 || packets == frames.count)
        return (good, bad, packets == frames.count - 1)
    }

    @Test(arguments: [["demux", "IN", "--audio", "OUT.aac"], ["mux", "--audio", "IN", "--out", "OUT.m4a"],
                      ["remux", "IN", "OUT.m4a"]])
    func damagedADTSIsAnInputErrorAndLeavesNothing(command: [String]) throws {
        let folder = TemporaryDirectory()
        let (good, bad, dropped) = try Self.damagedADTS(in: folder)
        func run(_ input: String) throws -> ProcessResult {
            try avpipe(command.map { $0 == "IN" ? input : $0.replacingOccurrences(of: "OUT", with: folder.file("out")) })
        }
        let intact = try run(good)
        #expect(intact.status == 0, "the intact file must pass: \(intact.stderrText)")
        for name in folder.contents() where name.hasPrefix("out") { try FileManager.default.removeItem(atPath: folder.file(name)) }
        let before = folder.contents()
        let damaged = try run(bad)
        #expect(damaged.status == 66, "\(damaged.stderrText)")
        // Bytes skipped by FFmpeg's resync (5.1), or a packet shorter than its header says (7.1).
        #expect(damaged.stderrText.contains("bad.aac") && damaged.stderrText.contains(dropped ? "skipped" : "is damaged"))
        #expect(folder.contents() == before)
    }

    @Test(.enabled(if: Locations.corpusAvailable),
          arguments: ["muxjs__test-aac-segment.aac", "androidx__sample.adts", "androidx__bbb_1ch_8kHz_aac_lc.aac"])
    func intactCorpusADTSIsNotFlagged(name: String) throws {
        let folder = TemporaryDirectory()
        let result = try avpipe(["demux", Locations.corpusFile(name), "--audio", folder.file("out.aac")])
        #expect(result.status == 0, "\(result.stderrText)")
    }
}
