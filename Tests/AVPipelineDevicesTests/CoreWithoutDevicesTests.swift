import Foundation
import Testing
import TestSupport

/// `AVPipeline` builds and links without SDL: a transcoding service that imports it needs no
/// window system. The devices live in `AVPipelineDevices` alone.
@Suite struct CoreWithoutDevicesTests {
    /// No source of the core imports SDL (or names its loader).
    @Test func noCoreSourceImportsSDL() throws {
        let root = Locations.packageRoot + "/Sources/AVPipeline"
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "the core's sources were not found at \(root)")
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            #expect(!text.contains("import CSDL2"), "\(file) imports SDL")
        }
    }

    /// The package says so: the core's target depends on no SDL target, the devices' does.
    @Test func theCoreTargetDependsOnNoSDLTarget() throws {
        let manifest = try String(contentsOfFile: Locations.packageRoot + "/Package.swift", encoding: .utf8)
        let core = try #require(Self.dependencies(of: "AVPipeline", in: manifest))
        #expect(!core.contains("CSDL2"), "AVPipeline depends on \(core)")
        let devices = try #require(Self.dependencies(of: "AVPipelineDevices", in: manifest))
        #expect(devices.contains("\"CSDL2Loader\""))
    }

    /// What the build compiled the core against: its compiler dependency files name no SDL header
    /// or module (so `swift build --target AVPipeline` neither needs SDL's headers nor compiles
    /// CSDL2Loader).
    @Test func theBuiltCoreSawNoSDLHeader() throws {
        let folder = Locations.buildProducts + "/AVPipeline.build"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        // Only the files of sources the core has now: a build folder that compiled an older tree
        // keeps the dependency files of sources since moved to AVPipelineDevices.
        let sources = Set((FileManager.default.enumerator(atPath: Locations.packageRoot + "/Sources/AVPipeline")?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }.map { ($0 as NSString).lastPathComponent.replacingOccurrences(of: ".swift", with: "") })
        let dependencyFiles = names.filter { $0.hasSuffix(".d") && sources.contains(String($0.dropLast(2))) }
        try #require(!dependencyFiles.isEmpty, "no compiler dependency files in \(folder)")
        for name in dependencyFiles {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            #expect(!text.contains("SDL"), "\(name) lists an SDL file")
        }
    }

    /// The `dependencies: [...]` of the target named `name`.
    static func dependencies(of name: String, in manifest: String) -> String? {
        let pattern = try! NSRegularExpression(pattern: "name: \"\(name)\",\\s*dependencies: \\[([^\\]]*)\\]")
        let whole = NSRange(manifest.startIndex..., in: manifest)
        guard let match = pattern.firstMatch(in: manifest, range: whole), let list = Range(match.range(at: 1), in: manifest) else { return nil }
        return String(manifest[list])
    }
}
