import AVPipeline
import Foundation
import Testing
import TestSupport

@Suite struct AudioFileSourceTests {
    /// From a lossless file, an exact start and duration give exactly the samples ffmpeg decodes
    /// at those positions: 0.5 s from 1 s is samples 44100 ..< 66150.
    @Test func aStartAndDurationCutToTheSample() async throws {
        let folder = TemporaryDirectory()
        let input = folder.file("tone.flac")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3", "-c:a", "flac",
                                 "-sample_fmt", "s16", input])
        let source = try AudioFileSource(path: input, options: .init(start: .seconds(1),
                                                                     duration: MediaTime(value: 500, timeBase: Rational(1, 1000))))
        #expect(source.duration?.seconds == 0.5)
        var samples: [Int16] = []
        for try await buffer in source {
            #expect(buffer.format.sampleFormat == .s16)
            buffer.withUnsafePlane(0) { samples += $0.bindMemory(to: Int16.self) }
        }
        let all = try Subprocess.run("ffmpeg", ["-v", "error", "-i", input, "-f", "s16le", "-"]).stdout
        let reference = all.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)[44_100..<66_150]) }
        #expect(samples.count == 22_050)
        #expect(samples == reference, "the same samples as ffmpeg's decode at 1 s")
    }
}
