import Foundation
import Testing
import TestSupport

/// A raw stream with a broken frame header in the middle: FFmpeg resynchronizes and drops the frame
/// without a word, so avpipe must notice the skipped bytes itself and refuse the input. Damage after
/// the last whole frame is a warning instead.
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

    /// The same bytes as `seed` always gives (xorshift64), for junk that is random but repeatable.
    static func junk(seed: UInt64, count: Int) -> [UInt8] {
        var x = seed &* 0x9E37_79B9_7F4A_7C15
        if x == 0 { x = 1 }
        var bytes: [UInt8] = []
        while bytes.count < count {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            bytes += withUnsafeBytes(of: x.littleEndian, Array.init)
        }
        return Array(bytes.prefix(count))
    }

    /// Damage after the last whole ADTS frame that FFmpeg reads packets from is a warning, as ffmpeg
    /// takes it (it decodes every frame and warns), in every command that reads ADTS; `--strict`
    /// refuses it and writes nothing. Random junk holds a frame header's pattern 3 times in 4: seed 2's
    /// gives one packet the decoder rejects; seed 18's a packet shorter than its header says with
    /// another after it (both: 'bytes of damaged data were skipped', exit 66, before). And a last
    /// frame cut inside its header and filled up with zeros (a preallocated file: 'Invalid data found
    /// when processing input (after packet 216)', exit 66, before).
    @Test(arguments: ["seed 2", "seed 18", "zero-filled last frame"])
    func damageAfterTheLastWholeFrameIsAWarning(damage: String) throws {
        let folder = TemporaryDirectory()
        let good = folder.file("good.aac"), bad = folder.file("bad.aac")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=5", "-c:a", "aac", "-b:a", "64k", good])
        let stream = try fileBytes(good)
        let frames = try ADTSParser.headers(stream)
        let damaged: [UInt8]
        switch damage {
        case "seed 2": damaged = stream + Self.junk(seed: 2, count: 6000)
        case "seed 18": damaged = stream + Self.junk(seed: 18, count: 6000)
        default:
            // Cut 3 bytes into the last frame's header (its sync word is there, its length is not).
            damaged = Array(stream.dropLast(frames.last!.frameLength - 3)) + [UInt8](repeating: 0, count: 1000)
        }
        try Data(damaged).write(to: URL(fileURLWithPath: bad))
        if damage.hasPrefix("seed"), try Probe.packets(bad).count <= frames.count {
            print("notice: this FFmpeg reads no packet from the junk of \(damage)")
        }

        // The oracle: ffmpeg's decode of the damaged file, byte for byte.
        let decode = try avpipe(["decode", bad, "--format", "pcm", "--sample-format", "s16", "--out", folder.file("ours.pcm")])
        #expect(decode.status == 0 && decode.stderrText.contains("is incomplete"), "\(decode.stderrText)")
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", bad, "-f", "s16le", folder.file("ff.pcm")])
        let ours = try fileBytes(folder.file("ours.pcm")), theirs = try fileBytes(folder.file("ff.pcm"))
        let same = ours == theirs
        #expect(same, "\(damage): \(ours.count) bytes of PCM, ffmpeg's \(theirs.count)")
        // Every frame before the damage.
        #expect(ours.count == (frames.count - (damage.hasPrefix("seed") ? 0 : 1)) * 1024 * 2)

        for command in [["demux", bad, "--audio", folder.file("o.aac")], ["remux", bad, folder.file("o.m4a")],
                        ["mux", "--audio", bad, "--out", folder.file("m.m4a")], ["encode", "--in", bad, "--out", folder.file("e.m4a")],
                        ["decode", bad, "--null"]] {
            let run = try avpipe(command)
            #expect(run.status == 0 && run.stderrText.contains("'\(bad)' is incomplete"), "\(command): \(run.stderrText)")
        }
        // Every whole frame is copied as it was.
        let copied = try fileBytes(folder.file("o.aac"))
        #expect(copied.starts(with: stream.prefix(frames.dropLast().map(\.frameLength).reduce(0, +))))

        let before = FolderSnapshot(folder.path)
        for command in [["decode", bad, "--out", folder.file("s.wav")], ["demux", bad, "--audio", folder.file("s.aac")],
                        ["remux", bad, folder.file("s.m4a")], ["encode", "--in", bad, "--out", folder.file("s2.m4a")]] {
            let strict = try avpipe(command + ["--strict"])
            #expect(strict.status == 66 && strict.stderrText.contains("bad.aac"), "\(command): \(strict.stderrText)")
        }
        #expect(FolderSnapshot(folder.path) == before)
    }

    @Test(.enabled(if: Locations.corpusAvailable),
          arguments: ["muxjs__test-aac-segment.aac", "androidx__sample.adts", "androidx__bbb_1ch_8kHz_aac_lc.aac"])
    func intactCorpusADTSIsNotFlagged(name: String) throws {
        let folder = TemporaryDirectory()
        let result = try avpipe(["demux", Locations.corpusFile(name), "--audio", folder.file("out.aac")])
        #expect(result.status == 0, "\(result.stderrText)")
    }
}
