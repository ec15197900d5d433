import Foundation
import Testing
import TestSupport

/// `decode --start T [--duration D]` gives the samples of the file's full decode from round(T·rate),
/// round(D·rate) of them (ffmpeg's -ss/-t count), in every seekable container. The oracle is
/// ffmpeg's decode of the whole track, not `ffmpeg -ss`: on Matroska's millisecond clock ffmpeg's
/// own seek lands up to half a millisecond off (24 samples at 48 kHz), Opus there 24 to 384 samples
/// off (its decoder drops the pre-skip again after the seek, and it counts from the first packet's
/// time, the pre-skip before the first sample), Vorbis there 235 to 563.
@Suite struct ExactStartTests {
    enum Source: String, CaseIterable {
        case mkvAACWithVideo = "mkv", mp4AAC = "mp4", mp3, oggOpus = "ogg", wav, flac, mkvFLAC = "flac.mkv"
        case mkvOpus = "opus.mkv", webmOpus = "webm", oggVorbis = "vorbis.ogg", mkvVorbis = "vorbis.mkv"
        /// Matroska as mkvmerge writes an audio-only file: no cues, and 8 packets laced in each block
        /// (only the first has a time), so FFmpeg's seek lands on the block after the time asked.
        case mkvmergeOpus = "mkvmerge.opus.mkv", mkvmergeVorbis = "mkvmerge.vorbis.mkv"

        var isMkvmerge: Bool { self == .mkvmergeOpus || self == .mkvmergeVorbis }

        /// Where to start: late starts too in mkvmerge's files, whose blocks span 160 ms (Opus) or more,
        /// so that a seek landing a block late misses the target (3.123) or the pre-roll (3.2).
        var starts: [(Double, Double?)] {
            [(1.2345, nil), (2.5005, 1.00001), (0.77777, nil)] + (isMkvmerge ? [(3.123, nil), (3.2, nil)] : [])
        }

        func make(_ path: String) throws -> String {
            // A chirp: no two sample positions look alike, so a lag shows.
            let chirp = ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*(100+150*t)*t):s=48000:d=4"]
            let audio: [String] = switch self {
            case .mkvAACWithVideo, .mp4AAC: ["-c:a", "aac"]
            case .mp3: ["-c:a", "libmp3lame"]
            case .oggOpus, .mkvOpus, .webmOpus, .mkvmergeOpus: ["-c:a", "libopus"]
            case .oggVorbis, .mkvVorbis, .mkvmergeVorbis: ["-c:a", "libvorbis"]
            case .wav: ["-c:a", "pcm_f32le"]
            case .flac, .mkvFLAC: ["-c:a", "flac"]
            }
            // Matroska with video: the seek lands on a video keyframe's cluster, mid-way between audio frames' rounded times.
            let video = self == .mkvAACWithVideo
                ? ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25:duration=4", "-c:v", "libx264", "-g", "25", "-preset", "ultrafast"] : []
            guard isMkvmerge else {
                try MediaFactory.ffmpeg(["-v", "error"] + chirp + video + audio + [path])
                return path
            }
            let ogg = path + (self == .mkvmergeOpus ? ".opus" : ".ogg")
            try MediaFactory.ffmpeg(["-v", "error"] + chirp + audio + [ogg])
            let run = try Subprocess.run("mkvmerge", ["--quiet", "-o", path, ogg])
            guard run.status == 0 else { throw TestFailure("mkvmerge failed: \(run.stdoutText) \(run.stderrText)") }
            return path
        }

        /// How far a start may land from the full decode's sample (in samples), and why it cannot be 0.
        var tolerance: Int {
            // Matroska stamps packets to the millisecond. A full decode of Vorbis counts its samples from the
            // rounded time of the track's second packet (the first decodes to nothing); after a seek, that
            // packet is never read, and a packet's place on the count is known only within half a millisecond
            // each way for its own time and for that second packet's: under one millisecond, 48 samples.
            // (Opus and AAC packets start on a grid coarser than a millisecond whose origin the track's
            // start gives to the sample; Vorbis packets, 128 to 1024 samples, have none that FFmpeg reports.)
            self == .mkvVorbis ? 47 : 0
        }
    }

    static func floats(_ data: Data) -> [Float] { data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } }

    /// ffmpeg's decode of the whole audio track, and where the file's timeline starts in it (in samples):
    /// the decode begins at its first frame's time, which is not the track's start when the decoder
    /// drops samples first (Opus's pre-skip on Matroska: the track starts 7 ms before the frame;
    /// Vorbis's first packet, which decodes to nothing: 3 ms).
    static func fullDecode(_ path: String) throws -> (samples: [Float], fileStart: Int) {
        let decoded = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "f32le", "-"])
        var samples = floats(decoded.stdout)
        if let presented = try Probe.presentedAudioSamples(path) { samples = Array(samples.prefix(presented)) }  // FFmpeg 5.1 keeps MP4 padding
        let starts = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "format=start_time", "-of", "json", path])
        let json = try #require(try JSONSerialization.jsonObject(with: starts.stdout) as? [String: Any])
        let format = Double((json["format"] as? [String: Any])?["start_time"] as? String ?? "0") ?? 0
        // Opus's pre-skip is never presented: the decode starts where the file's audio does, though
        // Matroska's start is the first packet's time, the pre-skip earlier (−7 ms, −6.5 ms by mkvmerge).
        if try Probe.run(path).streams.contains(where: { $0["codec_name"] as? String == "opus" }) { return (samples, 0) }
        let firstFrame = try firstStampedFrame(path, fillIn: false) ?? #require(try firstStampedFrame(path, fillIn: true))
        return (samples, Int(((format - firstFrame) * 48_000).rounded()))
    }

    /// Where the decode's first sample is on the file's clock: the time of the first of its first 20 frames
    /// that has one, less the samples decoded before it. Without `fillIn`, only the times the container
    /// stamps (a Matroska block's), not those FFmpeg guesses for the packets laced after it from its
    /// parser's durations (mkvmerge's Vorbis: 64 samples off the block times that follow); raw streams
    /// (MP3, WAV) stamp none there.
    static func firstStampedFrame(_ path: String, fillIn: Bool) throws -> Double? {
        let frames = try Subprocess.run("ffprobe", ["-v", "error"] + (fillIn ? [] : ["-fflags", "+nofillin"])
                                        + ["-select_streams", "a:0", "-read_intervals", "%+#20", "-show_frames",
                                           "-show_entries", "frame=pts_time,nb_samples", "-of", "csv=p=0", path])
        var before = 0
        for line in frames.stdoutText.split(separator: "\n") {
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count == 2, let count = Int(fields[1]) else { continue }
            if let time = Double(fields[0]) { return time - Double(before) / 48_000 }
            before += count
        }
        return nil
    }

    @Test(arguments: Source.allCases)
    func aStartGivesTheFullDecodesSamplesFromThatInstant(_ source: Source) throws {
        if source.isMkvmerge && !Subprocess.isAvailable("mkvmerge") { print("notice: mkvmerge absent; \(source) skipped"); return }
        let folder = TemporaryDirectory()
        let input = try source.make(folder.file("in.\(source.rawValue)"))
        let full = try Self.fullDecode(input)
        for (start, duration) in source.starts {
            let run = try avpipe(["decode", input, "--start", "\(start)"] + (duration.map { ["--duration", "\($0)"] } ?? [])
                                 + ["--sample-format", "flt", "--format", "pcm", "--out", "-"])
            #expect(run.status == 0, "\(run.stderrText)")
            let ours = Self.floats(run.stdout)
            let first = full.fileStart + Int((start * 48_000).rounded())
            let end = duration.map { first + Int(($0 * 48_000).rounded()) } ?? full.samples.count
            let expected = Array(full.samples[first..<min(end, full.samples.count)])
            let lag = SignalAnalysis.bestLag(expected, ours, start: 4800, length: 4800, lags: -64...64)
            #expect(abs(lag) <= source.tolerance, "\(source) from \(start) s: ours starts \(abs(lag)) samples \(lag < 0 ? "late" : "early")")
            // To the end of the input, a start that lands early gives that many samples more.
            let count = expected.count + (duration == nil ? lag : 0)
            #expect(ours.count == count, "\(source) from \(start) s: \(ours.count) samples, the full decode's \(count)")
            let aligned = Array(full.samples[(first - lag)...].prefix(ours.count))
            let worst = zip(ours, aligned).dropFirst(4800).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < 2e-3, "\(source) from \(start) s: samples differ by up to \(worst)")
        }
    }

    /// Opus in WebM as ffmpeg's muxer writes it (the first block at −7 ms, its 312-sample pre-skip
    /// rounded to the millisecond), 6 s: a start gives the whole decode cut at round(T·rate), to the
    /// sample and in count, with and without a duration, near the end too. It started 336 samples
    /// (the −7 ms) early: the file's start was taken for where its audio starts.
    @Test func opusInFFmpegsWebMStartsAtTheSampleAsked() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("in.webm")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*(100+150*t)*t):s=48000:d=6",
                                 "-c:a", "libopus", input])
        let whole = Self.floats(try Subprocess.run("ffmpeg", ["-v", "error", "-i", input, "-f", "f32le", "-"]).stdout)
        for (start, duration) in [(0.5, nil), (1.0, 1.0), (4.321, nil), (4.321, 0.5), (5.75, nil)] as [(Double, Double?)] {
            let run = try avpipe(["decode", input, "--start", "\(start)"] + (duration.map { ["--duration", "\($0)"] } ?? [])
                                 + ["--sample-format", "flt", "--format", "pcm", "--out", "-"])
            #expect(run.status == 0, "\(run.stderrText)")
            let ours = Self.floats(run.stdout)
            let first = Int((start * 48_000).rounded())
            let end = duration.map { first + Int(($0 * 48_000).rounded()) } ?? whole.count
            let expected = Array(whole[first..<min(end, whole.count)])
            #expect(ours.count == expected.count, "from \(start) s: \(ours.count) samples, the cut's \(expected.count)")
            // Where ours sits in the whole decode (0: exact), once the decoder has converged after the
            // seek (100 ms, as the test above).
            let lag = SignalAnalysis.bestLag(expected, ours, start: 4800, length: 2400, lags: -480...480)
            #expect(lag == 0, "from \(start) s: ours starts \(abs(lag)) samples \(lag < 0 ? "late" : "early")")
            let worst = zip(ours, expected).dropFirst(4800).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < 2e-3, "from \(start) s: samples differ by up to \(worst)")
        }
    }

    /// `--start` past the end is a usage error that names the input's length, and nothing is
    /// written (it wrote a 0-byte .aac or a header-only WAV and succeeded), as `frame --at` does.
    @Test func aStartPastTheEndWritesNothing() throws {
        let folder = TemporaryDirectory()
        let input = try MediaFactory.tone(folder.file("in.wav"), seconds: 2)
        for arguments in [["encode", "--in", input, "--out", folder.file("o.aac")], ["encode", "--in", input, "--out", folder.file("o.m4a")],
                          ["decode", input, "--out", folder.file("o.wav")], ["decode", input, "--null"]] {
            let run = try avpipe(arguments + ["--start", "20"])
            #expect(run.status == 64, "\(arguments): \(run.stderrText)")
            #expect(run.stderrText.contains("the input ends at 2.0 s, before --start 20"), "\(run.stderrText)")
            #expect(folder.contents() == ["in.wav"])
        }
    }
}
