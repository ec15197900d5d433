import Foundation
import Testing
import TestSupport

/// An M4A that avpipe encodes from N samples decodes to exactly N samples, aligned with the input:
/// the edit list skips the encoder's priming and ends, to the sample, where the audio does, and the
/// `iTunSMPB` tag says the same for Apple's players. Checked with ffprobe (the edit list as FFmpeg
/// reads it), AtomicParsley (the tag), and a cross-correlation of the decode against the input.
@Suite struct GaplessTests {
    /// Lengths around the AAC frame (1024) and a long one.
    static let lengths: [Int] = [1, 100, 1023, 1024, 1025, 2047, 2048, 2049, 44_100, 146_433]

    /// A sweep, so that only one alignment of the decode matches the input; in cosine phase, so
    /// that even a one-sample input is not silent (0.5).
    static func makeInput(samples: Int, in folder: TemporaryDirectory) throws -> String {
        let path = folder.file("in-\(samples).wav")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "aevalsrc='0.5*cos(2*PI*(200+3000*t)*t)':s=44100:d=4",
                                 "-af", "atrim=end_sample=\(samples)", "-c:a", "pcm_s16le", path])
        return path
    }

    static func monoFloats(_ path: String) throws -> [Float] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-ac", "1", "-f", "f32le", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg cannot decode \(path): \(result.stderrText)") }
        return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func formatTag(_ path: String, _ key: String) throws -> String {
        try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "format_tags=\(key)", "-of", "csv=p=0", path])
            .stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: lengths)
    func encodeThenDecodeGivesBackEverySample(_ samples: Int) throws {
        let folder = TemporaryDirectory()
        let input = try Self.makeInput(samples: samples, in: folder)
        let encoded = folder.file("out.m4a"), decoded = folder.file("back.wav")
        // 96 kb/s, which the error bounds below were measured at (the default follows the channels:
        // 69 kb/s for this mono input, where a 100-sample input's best lag reads 1).
        let encode = try avpipe(["encode", "--in", input, "--out", encoded, "--bitrate", "96k"])
        #expect(encode.status == 0, "\(encode.stderrText)")

        // The edit list, as FFmpeg's demuxer applies it: starts at 0, lasts N samples.
        let probe = try Probe.run(encoded)
        #expect(probe.int("start_pts") == 0 && probe.int("duration_ts") == samples, "\(probe.streams)")
        // iTunSMPB: priming 1024 (FFmpeg's encoder delay), N valid samples, padding to whole frames.
        let tag = try Self.formatTag(encoded, "iTunSMPB").split(separator: " ")
        let packets = try Probe.packets(encoded).count
        #expect(tag.count == 12 && Int(tag[1], radix: 16) == 1024 && Int(tag[3], radix: 16) == samples
                && Int(tag[2], radix: 16) == packets * 1024 - 1024 - samples, "\(tag)")
        #expect(try ContainerOracles.atomicParsley(encoded).contains("----"))

        let decode = try avpipe(["decode", encoded, "--out", decoded])
        #expect(decode.status == 0, "\(decode.stderrText)")
        let original = try Self.monoFloats(input), back = try Self.monoFloats(decoded)
        #expect(back.count == samples, "decoded \(back.count) of \(samples) samples")
        guard back.count == samples else { return }
        // Aligned, at every length: over (at most) 4096 samples in the middle, lag 0 matches best
        // among lags up to the priming (1024) or, for short inputs, half the input.
        if samples >= 64 {
            let length = min(samples, 4096), reach = min(1100, samples / 2)
            let lag = SignalAnalysis.bestLag(original, back, start: (samples - length) / 2, length: length, lags: -reach...reach)
            #expect(lag == 0, "the decode is \(lag) samples off the input")
        }
        // Sample by sample, too (all a 1-sample input allows): a decode off by the priming would
        // give the encoder's silent start, an error of about the signal's level. AAC at 96 kb/s
        // measures 0.016–0.16 here (the 1-sample case worst).
        let error = SignalAnalysis.rms(zip(original, back).map { $0 - $1 }), level = SignalAnalysis.rms(original)
        #expect(error < level / 2, "RMS error \(error) against a level of \(level)")
        // FFmpeg 5.1 skips the priming but keeps the padding: whole frames, never fewer than N.
        let ffmpegCount = try Self.monoFloats(encoded).count
        #expect(ffmpegCount >= samples && ffmpegCount < samples + 1024, "ffmpeg decodes \(ffmpegCount)")
    }

    /// Remux keeps it: the copy decodes to the same N samples, with the tag, whether the index
    /// ends up before the media (the tag moves every chunk offset) or after it.
    @Test(arguments: [true, false])
    func remuxKeepsTheGaplessInfo(faststart: Bool) throws {
        let folder = TemporaryDirectory()
        let input = try Self.makeInput(samples: 44_101, in: folder)
        let encoded = folder.file("a.m4a"), copy = folder.file("b.m4a")
        #expect(try avpipe(["encode", "--in", input, "--out", encoded]).status == 0)
        let remux = try avpipe(["remux", encoded, copy] + (faststart ? [] : ["--no-faststart"]))
        let boxes = try ContainerOracles.topLevelBoxes(copy).map(\.type)
        #expect((boxes.firstIndex(of: "moov")! < boxes.firstIndex(of: "mdat")!) == faststart, "\(boxes)")
        #expect(remux.status == 0, "\(remux.stderrText)")
        #expect(try Self.formatTag(copy, "iTunSMPB") == Self.formatTag(encoded, "iTunSMPB"))
        let original = try Self.decodedByAvpipe(encoded, in: folder)
        #expect(original.count == 44_101)
        #expect(try Self.decodedByAvpipe(copy, in: folder) == original)

        // An M4A from ffmpeg's own encoder (an edit list hides its priming): ffmpeg decodes the
        // copy to the same samples as the file.
        let theirs = folder.file("ffmpeg.m4a"), theirCopy = folder.file("ffmpeg-copy.m4a")
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c:a", "aac", theirs])
        let firstTime = try Probe.packets(theirs).first?["pts"] as? NSNumber
        #expect((firstTime?.intValue ?? 0) < 0, "the priming is behind an edit list")
        let copied = try avpipe(["remux", theirs, theirCopy] + (faststart ? [] : ["--no-faststart"]))
        #expect(copied.status == 0, "\(copied.stderrText)")
        let source = try Self.monoFloats(theirs), copyDecoded = try Self.monoFloats(theirCopy)
        #expect(copyDecoded.count == source.count && copyDecoded == source, "\(copyDecoded.count) samples vs \(source.count)")
    }

    static func decodedByAvpipe(_ path: String, in folder: TemporaryDirectory) throws -> [Float] {
        let out = folder.file("avpipe-\(UUID().uuidString).wav")
        let run = try avpipe(["decode", path, "--out", out])
        guard run.status == 0 else { throw TestFailure("avpipe decode \(path): \(run.stderrText)") }
        return try monoFloats(out)
    }

    /// A file from another encoder with only the iTunSMPB tag (no edit list), as older iTunes files
    /// are: decode trims the priming and the padding it declares.
    @Test func decodeHonoursITunSMPBWithoutAnEditList() throws {
        let folder = TemporaryDirectory()
        let input = try Self.makeInput(samples: 50_000, in: folder)
        let tagged = folder.file("tagged.m4a")
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c:a", "aac", "-use_editlist", "0", tagged])
        let packets = try Probe.packets(tagged).count
        let value = GaplessTag.value(priming: 1024, padding: packets * 1024 - 1024 - 50_000, samples: 50_000)
        let parsley = try Subprocess.run("AtomicParsley", [tagged, "--rDNSatom", value, "name=iTunSMPB", "domain=com.apple.iTunes", "--overWrite"])
        #expect(parsley.status == 0, "\(parsley.stderrText)")
        let back = try Self.decodedByAvpipe(tagged, in: folder)
        #expect(back.count == 50_000)
        let lag = SignalAnalysis.bestLag(try Self.monoFloats(input), back, start: 10_000, length: 4096, lags: -1100...1100)
        #expect(lag == 0, "the decode is \(lag) samples off the input")
    }
}

/// An iTunSMPB value written independently of the library's own formatter.
enum GaplessTag {
    static func value(priming: Int, padding: Int, samples: Int) -> String {
        " 00000000 " + String(format: "%08X %08X %016llX", priming, padding, Int64(samples)) + String(repeating: " 00000000", count: 8)
    }
}
