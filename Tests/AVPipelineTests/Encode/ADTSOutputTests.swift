import Foundation
import Testing
import TestSupport
@testable import AVPipeline

/// Our ADTS files, read by the test's own header parser and by faad (an independent AAC decoder).
@Suite struct ADTSOutputTests {
    static let rates = [8_000, 22_050, 44_100, 48_000, 96_000]
    static let channelCounts = [1, 2, 6]

    @Test(arguments: rates, channelCounts)
    func everyHeaderDescribesTheStream(sampleRate: Int, channels: Int) async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 0.5, sampleRate: sampleRate, channels: channels)
        try await FileCapture(path: wav).encodeAAC().writeADTS(to: folder.file("out.aac"))
        let bytes = try fileBytes(folder.file("out.aac"))
        let headers = try ADTSParser.headers(bytes)  // throws on a bad sync word or a frame overrunning the file
        #expect(headers.count == (sampleRate / 2 + 1023) / 1024 + 1)
        #expect(headers.map(\.frameLength).reduce(0, +) == bytes.count, "frame lengths must tile the file exactly")
        for header in headers {
            #expect(header.audioObjectType == 2, "AAC-LC")
            #expect(header.sampleRate == sampleRate)
            #expect(header.channelConfiguration == channels)
            #expect(header.mpegVersion == 0 && header.layer == 0 && header.protectionAbsent && header.rawDataBlocks == 1)
        }
        let sizes = try Probe.packets(folder.file("out.aac")).compactMap { Int("\($0["size"] ?? "")") }
        #expect(sizes == headers.map(\.frameLength), "ffprobe's raw-AAC packets are whole ADTS frames")
    }

    /// faad decodes our stream without complaint and the tone of each channel survives.
    @Test func faadDecodesItAndEachChannelKeepsItsTone() async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("pcm.wav"), seconds: 10, sampleRate: 44_100, channels: 2, frequencies: [440, 1000])
        try await FileCapture(path: wav).encodeAAC(.init(bitRate: 96_000)).writeADTS(to: folder.file("test.aac"))
        let result = try Subprocess.run("faad", ["-f", "2", "-b", "1", "-o", folder.file("decoded.raw"), folder.file("test.aac")])
        let log = result.stderrText + result.stdoutText
        #expect(result.status == 0)
        #expect(!log.lowercased().contains("error"), "faad reported: \(log)")  // faad exits 0 even on errors
        #expect(log.contains("44100 Hz") && log.contains("Config:  2 Ch"))
        let channels = SignalAnalysis.deinterleaveS16(try fileBytes(folder.file("decoded.raw")), channels: 2)
        #expect(abs(Double(channels[0].count) / 44_100 - 10) < 0.1, "decoded length \(channels[0].count) frames")
        #expect(abs(SignalAnalysis.dominantFrequency(channels[0], sampleRate: 44_100) - 440) < 5)
        #expect(abs(SignalAnalysis.dominantFrequency(channels[1], sampleRate: 44_100) - 1000) < 5)
        #expect(SignalAnalysis.rms(channels[0]) > 0.05)
    }

    @Test func ffprobeSeesTheDurationWithinOneFrame() async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("pcm.wav"), seconds: 10)
        try await FileCapture(path: wav).encodeAAC().writeMP4(to: folder.file("test.m4a"), brand: .m4a)
        let probe = try Probe.run(folder.file("test.m4a"))
        // MP4 carries the priming as an edit list, so the duration is the input's exactly (± one frame).
        #expect(abs((probe.duration ?? 0) - 10) <= 1024.0 / 44_100)
        #expect(probe.string("codec_name") == "aac" && probe.string("profile") == "LC")
        #expect(probe.string("major_brand", stream: 0) == nil)
        #expect((probe.format["tags"] as? [String: Any])?["major_brand"] as? String == "M4A ")
    }
}
