import Foundation
import Testing
import TestSupport

/// `avpipe encode --jobs N`: segments encoded at once and joined must not be found by any test.
/// Inputs of 120 s (music-like, speech from espeak-ng, a pure tone), cut into 2 and 8 segments:
/// the joined stream decodes without error in ffmpeg and faad to the sequential encode's length,
/// its window sequences are legal and, at every seam, the sequential encode's; in constant-quality
/// mode it decodes to the sequential encode's samples, and in bit-rate mode each seam's SNR
/// against the original is within the spread of the encoder's own (non-seam) windows.
@Suite struct ParallelEncodeTests {
    enum Signal: String, CaseIterable, Sendable { case music, speech, tone }

    static let seconds = 120
    /// 5168 frames of 1024 samples: 2 segments of 2584, 8 of 646.
    static let frames = (seconds * 44_100 + 1023) / 1024
    static let segmentations = [2, 8]

    static func makeInput(_ signal: Signal, in folder: TemporaryDirectory) throws -> String {
        let path = folder.file("\(signal).wav")
        switch signal {
        case .music:
            // Tones under slow envelopes, plucked notes (exponential decays) and noise bursts:
            // sustained parts and transients that switch the encoder to short windows.
            let left = "0.25*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*0.3*t))+0.15*sin(2*PI*331*t+2*sin(2*PI*3*t))"
                + "+0.3*exp(-25*mod(t,0.45))*sin(2*PI*880*t)+0.25*(2*random(0)-1)*exp(-40*mod(t+0.2,1.3))"
            let right = "0.25*sin(2*PI*277*t)*(0.6+0.4*sin(2*PI*0.21*t))+0.2*exp(-18*mod(t+0.1,0.6))*sin(2*PI*660*t)"
                + "+0.25*(2*random(1)-1)*exp(-40*mod(t+0.7,1.7))"
            try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "aevalsrc='\(left)|\(right)':s=44100:d=\(seconds)",
                                     "-c:a", "pcm_s16le", path])
        case .speech:
            let speech = folder.file("speech-once.wav")
            let said = try Subprocess.run("espeak-ng", ["-s", "150", "-w", speech,
                "Parallel encoding cuts the input into segments, and each one is encoded on its own core. "
                + "Every seam must be impossible to hear. She sells sea shells by the sea shore, while the wind "
                + "whistles through the willows. One, two, three, four, five, six, seven, eight, nine, ten."])
            guard said.status == 0 else { throw TestFailure("espeak-ng failed (scripts/setup.sh installs it): \(said.stderrText)") }
            try MediaFactory.ffmpeg(["-v", "error", "-stream_loop", "-1", "-i", speech, "-t", "\(seconds)", "-ar", "44100", "-ac", "2",
                                     "-c:a", "pcm_s16le", path])
        case .tone:
            try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)",
                                     "-ac", "2", "-c:a", "pcm_s16le", path])
        }
        return path
    }

    static func encode(_ input: String, _ output: String, _ options: [String]) throws {
        let result = try avpipe(["encode", input, output, "-y"] + options)
        guard result.status == 0 else { throw TestFailure("avpipe encode \(options) failed: \(result.stderrText)") }
    }

    static func parallel(segments: Int) -> [String] {
        ["--jobs", "2", "--segment-frames", "\((frames + segments - 1) / segments)"]
    }

    /// Mono samples as ffmpeg decodes them (an ADTS stream keeps the encoder's 1024 samples of
    /// priming: dropped, so sample i is the input's sample i). ffmpeg must report nothing.
    static func decode(_ path: String, format: String = "s16le", skipPriming: Bool = true) throws -> Data {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-err_detect", "explode", "-i", path, "-ac", "1", "-f", format, "-"])
        guard result.status == 0, result.stderrText.isEmpty else { throw TestFailure("ffmpeg cannot decode \(path): \(result.stderrText)") }
        let bytesPerSample = format == "s16le" ? 2 : 4
        return skipPriming ? result.stdout.dropFirst(1024 * bytesPerSample) : result.stdout
    }

    static func samples(_ data: Data) -> [Float] {
        data.withUnsafeBytes { raw in
            let s16 = raw.bindMemory(to: Int16.self)
            return [Float](unsafeUninitializedCapacity: s16.count) { out, count in
                for i in 0..<s16.count { out[i] = Float(s16[i]) }
                count = s16.count
            }
        }
    }

    /// The bytes faad decodes; it exits 0 on errors, so its log is read too.
    static func faadBytes(_ path: String, in folder: TemporaryDirectory) throws -> Int {
        let raw = folder.file("faad.raw")
        let result = try Subprocess.run("faad", ["-f", "2", "-b", "1", "-o", raw, path])
        let log = result.stdoutText + result.stderrText
        guard result.status == 0, !log.lowercased().contains("error") else { throw TestFailure("faad failed on \(path): \(log)") }
        return fileSize(raw)
    }

    /// What a joined stream is compared with: the sequential encode's decoded lengths and windows.
    struct Reference {
        let path: String, ffmpegBytes: Int, faadBytes: Int
        let windows: [AACWindowSequences.Sequence]

        init(_ path: String, in folder: TemporaryDirectory) throws {
            self.path = path
            ffmpegBytes = try decode(path).count
            faadBytes = try ParallelEncodeTests.faadBytes(path, in: folder)
            windows = try AACWindowSequences.firstChannel(fileBytes(path))
        }
    }

    /// What every joined stream must share with the sequential one: decodes in both decoders to
    /// the same length, no window transition the sequential stream lacks, its windows at the seams.
    static func checkJoin(_ joined: String, reference: Reference, segments: Int, in folder: TemporaryDirectory) throws {
        #expect(try decode(joined).count == reference.ffmpegBytes)
        #expect(try faadBytes(joined, in: folder) == reference.faadBytes)
        let ours = try AACWindowSequences.firstChannel(fileBytes(joined)), theirs = reference.windows
        #expect(ours.count == theirs.count)
        let illegal = Set(AACWindowSequences.illegalTransitions(ours)).subtracting(AACWindowSequences.illegalTransitions(theirs))
        #expect(illegal.isEmpty, "illegal window transitions at packets \(illegal.sorted())")
        let length = (frames + segments - 1) / segments
        for seam in stride(from: length, to: frames, by: length) where seam + 3 <= ours.count {
            #expect(ours[(seam - 3)..<(seam + 3)] == theirs[(seam - 3)..<(seam + 3)], "windows at the seam before packet \(seam)")
        }
    }

    @Test(arguments: Signal.allCases)
    func bitRateSeamsAreLegalAndWithinTheEncodersSpread(_ signal: Signal) throws {
        let folder = TemporaryDirectory()
        let input = try Self.makeInput(signal, in: folder)
        let sequential = folder.file("seq.aac")
        try Self.encode(input, sequential, ["--jobs", "1", "--bitrate", "96k"])
        let reference = try Reference(sequential, in: folder)
        let original = Self.samples(try Self.decode(input, skipPriming: false))
        for segments in Self.segmentations {
            let joined = folder.file("joined-\(segments).aac")
            try Self.encode(input, joined, Self.parallel(segments: segments) + ["--bitrate", "96k"])
            try Self.checkJoin(joined, reference: reference, segments: segments, in: folder)

            let decoded = Self.samples(try Self.decode(joined))
            let length = (Self.frames + segments - 1) / segments * 1024
            let seams = Array(stride(from: length, to: original.count, by: length))
            let quality = SeamQuality(original: original, decoded: decoded, seams: seams)
            print("parallel encode, \(signal), \(segments) segments: seam SNR \(quality.seamSNR.map { String(format: "%.1f", $0) }) dB, "
                  + "non-seam windows: 5th percentile \(String(format: "%.1f", quality.floor)) dB, median \(String(format: "%.1f", quality.median)) dB")
            for (seam, snr) in zip(quality.activeSeams, quality.seamSNR) {
                #expect(snr >= quality.floor, "\(signal), seam at sample \(seam): \(snr) dB, below the 5th percentile \(quality.floor) dB of other windows")
            }
            // A seam in a pause (speech) has no SNR to speak of: it must stay as quiet as the input.
            for seam in quality.quietSeams {
                #expect(quality.errorRMS(at: seam) < 8, "\(signal), seam at \(seam) in a pause: error RMS \(quality.errorRMS(at: seam))")
            }
        }
    }

    @Test(arguments: Signal.allCases)
    func constantQualityDecodesToTheSequentialSamples(_ signal: Signal) throws {
        let folder = TemporaryDirectory()
        let input = try Self.makeInput(signal, in: folder)
        let sequential = folder.file("seq.aac")
        try Self.encode(input, sequential, ["--jobs", "1", "--quality", "1"])
        let reference = try Reference(sequential, in: folder)
        let expected = try Self.decode(sequential, format: "f32le")
        for segments in Self.segmentations {
            let joined = folder.file("joined-\(segments).aac")
            try Self.encode(input, joined, Self.parallel(segments: segments) + ["--quality", "1"])
            try Self.checkJoin(joined, reference: reference, segments: segments, in: folder)
            let decoded = try Self.decode(joined, format: "f32le")
            #expect(decoded == expected, "\(signal), \(segments) segments: decodes to other samples than --jobs 1")
        }
    }

    /// Segmentation changes no timing: an M4A of N samples still says priming 1024 and N samples,
    /// and decodes to exactly N.
    @Test func gaplessM4AIsUnchanged() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("in.wav"), samples = 300_001  // 293 frames and a partial one
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "aevalsrc='0.5*sin(2*PI*(200+900*t)*t)':s=44100:d=7",
                                 "-af", "atrim=end_sample=\(samples)", "-ac", "2", "-c:a", "pcm_s16le", input])
        for options in [["--jobs", "1"], ["--jobs", "2", "--segment-frames", "40"], ["--jobs", "3", "--segment-frames", "97", "--quality", "2"]] {
            let m4a = folder.file("out.m4a"), back = folder.file("back.wav")
            try Self.encode(input, m4a, options)
            let probe = try Probe.run(m4a)
            #expect(probe.int("start_pts") == 0 && probe.int("duration_ts") == samples, "\(options): \(probe.streams)")
            #expect(try avpipe(["decode", m4a, "--out", back, "-y"]).status == 0)
            #expect(try Probe.run(back).int("duration_ts") == samples, "\(options)")
        }
    }

    @Test(arguments: [["--jobs", "0"], ["--jobs", "-2"], ["--quality", "0"], ["--quality", "1", "--bitrate", "96k"],
                      ["--jobs", "2", "--pre-roll", "0"], ["--jobs", "2", "--realtime"]])
    func badOptionsAreUsageErrors(_ options: [String]) throws {
        let folder = TemporaryDirectory()
        let input = try MediaFactory.tone(folder.file("in.wav"), seconds: 1)
        let result = try avpipe(["encode", input, folder.file("out.aac")] + options)
        #expect(result.status == 64, "\(options): \(result.status) \(result.stderrText)")
    }
}

/// SNR against the original in ±2048-sample windows: at each seam, and at every 4096th sample away
/// from seams (the encoder's own spread). Windows where the input is near silence (below −60 dBFS)
/// are set apart: their SNR measures nothing.
struct SeamQuality {
    let original: [Float], decoded: [Float]
    let activeSeams: [Int], quietSeams: [Int]
    let seamSNR: [Double]
    let floor: Double, median: Double

    init(original: [Float], decoded: [Float], seams: [Int]) {
        self.original = original
        self.decoded = decoded
        func active(_ c: Int) -> Bool { (Self.sums(original, decoded, c).energy / 4096).squareRoot() > 32 }
        func snr(_ c: Int) -> Double {
            let (energy, error) = Self.sums(original, decoded, c)
            return 10 * log10(energy / max(error, 1e-9))
        }
        activeSeams = seams.filter(active)
        quietSeams = seams.filter { !active($0) }
        seamSNR = activeSeams.map(snr)
        let others = stride(from: 4096, to: min(original.count, decoded.count) - 4096, by: 4096)
            .filter { c in active(c) && seams.allSatisfy { abs($0 - c) > 8192 } }.map(snr).sorted()
        floor = others[others.count * 5 / 100]
        median = others[others.count / 2]
    }

    func errorRMS(at c: Int) -> Double { (Self.sums(original, decoded, c).error / 4096).squareRoot() }

    /// The original's energy and the error's in the window around `c` (pointer loops: debug builds
    /// run the tests, and this covers 5 M samples per stream).
    static func sums(_ original: [Float], _ decoded: [Float], _ c: Int) -> (energy: Double, error: Double) {
        original.withUnsafeBufferPointer { a in
            decoded.withUnsafeBufferPointer { b in
                var energy: Float = 0, error: Float = 0
                for i in (c - 2048)..<(c + 2048) {
                    energy += a[i] * a[i]
                    error += (a[i] - b[i]) * (a[i] - b[i])
                }
                return (Double(energy), Double(error))
            }
        }
    }
}
