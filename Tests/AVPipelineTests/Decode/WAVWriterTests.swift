import Foundation
import Testing
import TestSupport
import AVPipeline

@Suite struct WAVWriterTests {
    @Test(arguments: [SampleFormat.u8, .s16, .s32, .flt])
    func writesWAVThatFFmpegReadsBackIdentically(_ sampleFormat: SampleFormat) async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 0.5, sampleRate: 22_050, channels: 6)
        let out = folder.file("out.wav")
        let summary = try await FileCapture(path: folder.file("in.wav")).resampled(to: .init(sampleFormat: sampleFormat)).writeWAV(to: out)
        #expect(summary.path == out)
        let probe = try Probe.run(out)
        let codec = ["u8": "pcm_u8", "s16": "pcm_s16le", "s32": "pcm_s32le", "flt": "pcm_f32le"][sampleFormat.rawValue]
        #expect(probe.string("codec_name") == codec)
        #expect(probe.int("channels") == 6)
        #expect(probe.int("sample_rate") == 22_050)
        #expect(probe.string("channel_layout") == "5.1")
        // ffmpeg's own conversion of the source to the same format, compared sample for sample.
        let theirs = try Subprocess.run("ffmpeg", ["-v", "error", "-i", folder.file("in.wav"), "-f", sampleFormat == .u8 ? "u8" : sampleFormat == .s16 ? "s16le" : sampleFormat == .s32 ? "s32le" : "f32le", "-"]).stdout
        let ours = try Subprocess.run("ffmpeg", ["-v", "error", "-i", out, "-c", "copy", "-f", sampleFormat == .u8 ? "u8" : sampleFormat == .s16 ? "s16le" : sampleFormat == .s32 ? "s32le" : "f32le", "-"]).stdout
        #expect(ours == theirs)
        #expect(folder.contents() == ["in.wav", "out.wav"], "no temporary file left behind")
    }

    @Test func planarInputIsRejectedWithAClearError() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 0.1)
        let planar = try FileCapture(path: folder.file("in.wav")).resampled(to: .init(sampleFormat: .fltp))
        #expect(throws: AVPipelineError.self) { _ = try WAVWriter(upstream: planar, path: folder.file("out.wav")) }
        #expect(!fileExists(folder.file("out.wav")))
    }
}
