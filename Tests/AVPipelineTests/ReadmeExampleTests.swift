import Foundation
import Testing
import TestSupport
import AVPipeline

/// The README's library example, compiled here so it cannot rot, and run on a generated WAV.
@Suite struct ReadmeExampleTests {
    static func readmeExample() async throws {
        let capture = try FileCapture(path: "pcm.wav")              // PCM in 1024-frame chunks, like a microphone
        let encoder = try capture.encodeAAC(.init(bitrate: 96_000))  // AAC-LC packets
        try await encoder.writeADTS(to: "test.aac")                  // appears only once complete
    }

    @Test func readmeShowsTheCompiledExample() throws {
        let readme = try String(contentsOfFile: Locations.packageRoot + "/README.md", encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let body = Self.lines(of: source, after: "static func readmeExample() async throws {", until: "    }")
        let block = Self.lines(of: readme, after: "import AVPipeline", until: "```")
        #expect(!body.isEmpty)
        #expect(body == block, "README example and ReadmeExampleTests.readmeExample() differ")
    }

    @Test func readmeExampleRuns() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("pcm.wav"), seconds: 1)
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        try await Self.readmeExample()
        let probe = try Probe.run(folder.file("test.aac"))
        #expect(probe.string("codec_name") == "aac")
    }

    /// The trimmed, non-empty lines between the line containing `start` and the next line that is `end`.
    static func lines(of text: String, after start: String, until end: String) -> [String] {
        let all = text.components(separatedBy: "\n")
        guard let first = all.firstIndex(where: { $0.contains(start) }) else { return [] }
        let rest = all[(first + 1)...]
        let stop = rest.firstIndex(where: { $0 == end }) ?? rest.endIndex
        return rest[..<stop].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
