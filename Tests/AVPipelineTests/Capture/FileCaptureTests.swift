import Foundation
import Testing
import TestSupport
@testable import AVPipeline

@Suite struct FileCaptureTests {
    /// Drains a capture, returning its chunks' frame counts and presentation times.
    static func drain(_ capture: FileCapture) async throws -> [(frames: Int, pts: Int64?)] {
        var chunks: [(frames: Int, pts: Int64?)] = []
        for try await buffer in capture {
            #expect(buffer.format == capture.outputFormat)
            chunks.append((buffer.frameCount, buffer.presentationTime?.value))
        }
        return chunks
    }

    @Test(arguments: [("pcm_u8", SampleFormat.u8), ("pcm_s16le", .s16), ("pcm_s24le", .s32),
                      ("pcm_s32le", .s32), ("pcm_f32le", .flt), ("pcm_f64le", .dbl)])
    func readsEveryPCMSampleFormatInMicSizedChunks(codec: String, expected: SampleFormat) async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 0.5, sampleRate: 44_100, channels: 2, codec: codec)
        let capture = try FileCapture(path: wav)
        #expect(capture.outputFormat.sampleFormat == expected)
        #expect(capture.outputFormat.sampleRate == 44_100)
        #expect(capture.outputFormat.channelCount == 2)
        let chunks = try await Self.drain(capture)
        #expect(chunks.reduce(0) { $0 + $1.frames } == 22_050)
        #expect(chunks.dropLast().allSatisfy { $0.frames == 1024 })
        #expect(chunks.last?.frames == 22_050 % 1024)
        #expect(chunks.enumerated().allSatisfy { $0.element.pts == Int64($0.offset * 1024) }, "pts must count sample frames")
    }

    @Test(arguments: [(8_000, 1), (22_050, 2), (48_000, 6), (96_000, 2), (192_000, 1), (44_100, 8)])
    func reportsRateAndChannels(sampleRate: Int, channels: Int) async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 0.25, sampleRate: sampleRate, channels: channels)
        let capture = try FileCapture(path: wav, options: .init(chunkFrames: 500))
        #expect(capture.outputFormat.sampleRate == sampleRate)
        #expect(capture.outputFormat.channelCount == channels)
        let frames = try #require(try Probe.run(wav).int("duration_ts"))
        #expect(capture.duration?.value == Int64(frames))
        let chunks = try await Self.drain(capture)
        #expect(chunks.reduce(0) { $0 + $1.frames } == frames)
        #expect(chunks.dropLast().allSatisfy { $0.frames == 500 })
    }

    @Test func rejectsAbsurdChunkSizes() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 0.1)
        for size in [0, -5, 1 << 24] {
            #expect(throws: AVPipelineError.self) { try FileCapture(path: wav, options: .init(chunkFrames: size)) }
        }
    }

    @Test func realtimePacingIsNoFasterThanTheAudio() async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 0.5)
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await Self.drain(try FileCapture(path: wav, options: .init(realtime: true)))
        // Lower bound only: pacing must hold back delivery; an upper bound would be a timing test.
        #expect(clock.now - start >= .milliseconds(400))
    }

    /// Cut mid-sample (the decoder sees a partial sample) and on a sample boundary (the data chunk
    /// promises more than the file holds): both are a truncated file, an error in strict mode…
    @Test(arguments: [1, 0])
    func truncatedWAVIsInvalidDataInStrictMode(extraByte: Int) async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 1)
        let bytes = try fileBytes(wav)
        try Data(bytes.prefix(bytes.count / 8 * 4 + extraByte)).write(to: URL(fileURLWithPath: folder.file("cut.wav")))
        let capture = try FileCapture(path: folder.file("cut.wav"), options: .init(strict: true))
        await #expect {
            _ = try await Self.drain(capture)
        } throws: { error in
            guard case AVPipelineError.invalidData(let path, _, let reason) = error else { return false }
            return path.hasSuffix("cut.wav") && reason.contains("truncated")
        }
    }

    /// … and by default the whole sample frames that are there, with the cut reported.
    @Test(arguments: [1, 3, 0])
    func truncatedWAVDeliversEveryWholeSampleFrame(extraBytes: Int) async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 1, channels: 2)  // s16 stereo: 4-byte frames
        let bytes = try fileBytes(wav)
        let headerSize = bytes.count - 44_100 * 4
        let keptFrames = 10_000
        try Data(bytes.prefix(headerSize + keptFrames * 4 + extraBytes)).write(to: URL(fileURLWithPath: folder.file("cut.wav")))
        let capture = try FileCapture(path: folder.file("cut.wav"))
        var frames = 0
        while let buffer = try await capture.next() { frames += buffer.frameCount }
        #expect(frames == keptFrames)
        // Cut on a frame boundary, the file looks whole to FFmpeg's WAV demuxer (it trims the
        // declared data size to the file); cut inside a frame, the cut shows.
        if extraBytes > 0 {
            #expect(capture.truncation?.packetsRead == keptFrames)
            #expect(capture.truncation?.unit == .sampleFrames)
        }
    }

    @Test func compressedAudioIsNotCaptured() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 0.2)
        try MediaFactory.ffmpeg(["-v", "error", "-i", wav, "-c:a", "aac", folder.file("x.m4a")])
        #expect { try FileCapture(path: folder.file("x.m4a")) } throws: { error in
            if case AVPipelineError.unsupportedCodec(let what) = error { return what.contains("aac") }
            return false
        }
    }

    // MARK: Reference corpus: ExoPlayer's WAV extractor dumps give the PCM of each 100 ms block.

    /// Captures `name` in 100 ms chunks and compares each chunk's bytes with the dump's hashes;
    /// `bytes` maps a chunk to the bytes the file stores (e.g. 24-bit from FFmpeg's s32).
    func expectCorpusBlocksMatch(_ name: String, dump: String, bytes: (PCMBuffer) -> [UInt8] = Self.interleavedBytes) async throws {
        let capture = try FileCapture(path: Locations.corpusFile(name),
                                      options: .init(chunkFrames: (try FileCapture(path: Locations.corpusFile(name))).outputFormat.sampleRate / 10))
        let expected = try ExoPlayerDump.samples(Locations.corpusFile(dump))
        var actual: [ExoPlayerDump.Sample] = []
        for try await chunk in capture {
            let data = bytes(chunk)
            actual.append(.init(length: data.count, hash: ExoPlayerDump.hash(data)))
        }
        #expect(!expected.isEmpty)
        #expect(actual == expected)
    }

    static func interleavedBytes(_ chunk: PCMBuffer) -> [UInt8] { chunk.withUnsafePlane(0) { Array($0) } }

    @Test(.enabled(if: Locations.corpusAvailable))
    func corpusS16MonoBlocksMatchExoPlayer() async throws {
        try await expectCorpusBlocksMatch("androidx__sample.wav", dump: "androidx__sample.wav.0.dump")
    }

    @Test(.enabled(if: Locations.corpusAvailable))
    func corpusU8BlocksMatchExoPlayer() async throws {
        try await expectCorpusBlocksMatch("androidx__sample_8bit.wav", dump: "androidx__sample_8bit.wav.wavmuxer_roundtrip.dump")
    }

    @Test(.enabled(if: Locations.corpusAvailable))
    func corpusExtensibleFloat51BlocksMatchExoPlayer() async throws {
        try await expectCorpusBlocksMatch("androidx__sample_wav_format_extensible.wav",
                                          dump: "androidx__sample_wav_format_extensible.wav.0.dump")
    }

    @Test(.enabled(if: Locations.corpusAvailable))
    func corpus24BitExtensibleBlocksMatchExoPlayer() async throws {
        // FFmpeg widens s24 to s32 (value << 8): the stored bytes are the top three of each sample.
        try await expectCorpusBlocksMatch("androidx__sine_24le.wav", dump: "androidx__sine_24le.wav.wavmuxer_roundtrip.dump") { chunk in
            let wide = Self.interleavedBytes(chunk)
            return stride(from: 0, to: wide.count, by: 4).flatMap { wide[($0 + 1)...($0 + 3)] }
        }
    }

    @Test(.enabled(if: Locations.corpusAvailable),
          arguments: ["hound__pcmwaveformat-8bit-44100Hz-mono.wav", "hound__waveformatex-16bit-44100Hz-stereo.wav",
                      "hound__waveformatex-ieeefloat-44100Hz-mono.wav", "hound__waveformatextensible-24bit-192kHz-mono.wav"])
    func corpusTinyWAVsCaptureEveryFrame(name: String) async throws {
        let path = Locations.corpusFile(name)
        let probe = try Probe.run(path)
        let capture = try FileCapture(path: path)
        #expect(capture.outputFormat.sampleRate == probe.int("sample_rate"))
        #expect(capture.outputFormat.channelCount == probe.int("channels"))
        let frames = try await Self.drain(capture).reduce(0) { $0 + $1.frames }
        let expected = try Probe.packets(path).reduce(0) { $0 + (Int("\($1["size"] ?? 0)") ?? 0) }
            / (capture.outputFormat.channelCount * (probe.int("bits_per_sample") ?? 16) / 8)
        #expect(frames == expected)
        #expect(frames == 4)
    }
}
