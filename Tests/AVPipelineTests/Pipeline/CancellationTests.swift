import Foundation
import Testing
import TestSupport
@testable import AVPipeline

@Suite struct CancellationTests {
    /// A cancelled encode throws `.cancelled` and leaves the folder as it found it (no output, no temp file).
    @Test func cancelledEncodeLeavesNothing() async throws {
        let folder = TemporaryDirectory()
        // Long enough that a starved test scheduler cannot let the realtime encode finish first.
        try MediaFactory.tone(folder.file("in.wav"), seconds: 60, channels: 1)
        let input = folder.file("in.wav"), output = folder.file("out.aac")
        let task = Task {
            try await FileCapture(path: input, options: .init(realtime: true)).encodeAAC().writeADTS(to: output)
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await #expect(throws: AVPipelineError.cancelled) { try await task.value }
        #expect(folder.contents() == ["in.wav"])
    }

    @Test func aFailedWriteLeavesNothingAndKeepsAnExistingFile() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 0.5)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: folder.file("out.aac")))
        await #expect(throws: AVPipelineError.outputExists(path: folder.file("out.aac"))) {
            try await FileCapture(path: folder.file("in.wav")).encodeAAC().writeADTS(to: folder.file("out.aac"))
        }
        #expect(try fileBytes(folder.file("out.aac")) == Array("keep me".utf8))
        try await FileCapture(path: folder.file("in.wav")).encodeAAC().writeADTS(to: folder.file("out.aac"), overwrite: true)
        #expect(try Probe.run(folder.file("out.aac")).string("codec_name") == "aac")
        #expect(folder.contents() == ["in.wav", "out.aac"])
    }
}
