import TestSupport
@testable import AVPipeline

/// Real PCM for tests of stages that only move buffers: 256-frame stereo s16 chunks at 8 kHz, read
/// by FileCapture from a tone the ffmpeg CLI made.
enum ToneBuffers {
    static let format = AudioFormat(sampleFormat: .s16, sampleRate: 8_000, channelLayout: .stereo)

    /// `count` buffers; the tone is left in `folder` as `t.wav`.
    static func make(_ count: Int, folder: TemporaryDirectory) async throws -> [PCMBuffer] {
        try MediaFactory.tone(folder.file("t.wav"), seconds: Double(count * 256) / 8_000, sampleRate: 8_000, channels: 2)
        var result: [PCMBuffer] = []
        for try await buffer in try FileCapture(path: folder.file("t.wav"), options: .init(chunkFrames: 256)) { result.append(buffer) }
        return result
    }
}
