import Foundation
import Testing
import TestSupport

/// The DocC catalog's session articles show code a reader copies: every ```swift block of them is
/// typechecked against the built `AVPipeline` module (each block a function body of its own), so
/// an article cannot drift from the API it teaches.
@Suite struct SessionArticleSnippetTests {
    static let catalog = Locations.packageRoot + "/Sources/AVPipeline/AVPipeline.docc"

    /// The bodies of `article`'s ```swift blocks, in order.
    static func swiftBlocks(_ article: String) throws -> [String] {
        let text = try String(contentsOfFile: "\(catalog)/\(article).md", encoding: .utf8)
        var blocks: [String] = [], current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if let lines = current, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Session types the articles teach that the module may not have yet (issue 39's sessions
    /// arrive in their own branches): the ones it lacks, found by typechecking a mention of each.
    static let missingTypes: [String] = ["TranscodeSession", "RecordingSession"].filter { name in
        (try? WiringTests.typecheck("let _ = \(name).self"))?.status != 0
    }

    /// `import AVPipelineDevices` once the devices (SDL's window and sound, X11 screens) are a
    /// module of their own, as a reader's program that plays or records then imports it.
    static let deviceImport: String = FileManager.default.fileExists(atPath: Locations.buildProducts + "/Modules/AVPipelineDevices.swiftmodule")
        ? "import AVPipelineDevices\n" : ""

    @Test(arguments: ["Transcoding", "Recording", "Streaming", "Playing"])
    func everySnippetCompiles(article: String) throws {
        let blocks = try Self.swiftBlocks(article)
        #expect(blocks.count >= 2, "\(article) shows its session in code")
        let checkable = blocks.filter { block in !Self.missingTypes.contains { block.contains($0) } }
        if checkable.count < blocks.count {
            print("notice: \(article): \(blocks.count - checkable.count) snippets not checked: the module has no \(Self.missingTypes.joined(separator: " or ")) yet")
        }
        guard !checkable.isEmpty else { return }
        let source = Self.deviceImport + checkable.enumerated().map { "func snippet\($0.offset)() async throws {\n\($0.element)\n}" }.joined(separator: "\n")
        let result = try WiringTests.typecheck(source)
        #expect(result.status == 0, "\(article): \(result.stderrText)")
    }
}
