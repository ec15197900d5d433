import Foundation
import Testing
import TestSupport

/// The buffer types make wrong wiring a compile-time error: these snippets are typechecked against
/// the built `AVPipeline` module, and the wrong ones must be rejected for the right reason.
@Suite struct WiringTests {
    static func typecheck(_ body: String) throws -> ProcessResult {
        let folder = TemporaryDirectory()
        let file = folder.file("snippet.swift")
        try "import AVPipeline\n\(body)\n".write(toFile: file, atomically: true, encoding: .utf8)
        return try Subprocess.run("swiftc", ["-typecheck", "-swift-version", "6", "-I", Locations.buildProducts + "/Modules"]
                                  + cModuleArguments() + [file])
    }

    /// What SwiftPM tells the compiler about the package's C modules: the system-library module maps
    /// in Sources/, the maps it generates for C targets, and the SDL headers' include path.
    static func cModuleArguments() -> [String] {
        let fm = FileManager.default
        let sources = Locations.packageRoot + "/Sources"
        let systemMaps = ((try? fm.contentsOfDirectory(atPath: sources)) ?? []).map { "\(sources)/\($0)/module.modulemap" }
        let generatedMaps = ((try? fm.contentsOfDirectory(atPath: Locations.buildProducts)) ?? [])
            .filter { $0.hasSuffix(".build") }.map { "\(Locations.buildProducts)/\($0)/module.modulemap" }
        let pkgConfig = (try? Subprocess.run("pkg-config", ["--cflags", "sdl2", "libavformat"]))?.stdoutText ?? ""
        return (systemMaps + generatedMaps).filter { fm.fileExists(atPath: $0) }.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] }
            + pkgConfig.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { $0.hasPrefix("-I") }.flatMap { ["-Xcc", $0] }
    }

    @Test func aCorrectPipelineCompiles() throws {
        let result = try Self.typecheck("""
            func pipeline<S: SampleSource>(_ demuxed: S) async throws where S.Buffer == EncodedAudioPacket<AnyAudioCodec> {
                try await FileCapture(path: "in.wav").encodeAAC().writeADTS(to: "out.aac")
                try await demuxed.requiring(AAC.self).writeADTS(to: "copy.aac")
            }
            """)
        #expect(result.status == 0, "\(result.stderrText)")
    }

    @Test(arguments: [
        ("PCM straight into an ADTS writer",
         #"func f() async throws { try await FileCapture(path: "in.wav").writeADTS(to: "out.aac") }"#),
        ("encoding packets that are already AAC",
         #"func f() throws { _ = try FileCapture(path: "in.wav").encodeAAC().encodeAAC() }"#),
        ("a runtime-codec stream into ADTS without checking it is AAC",
         #"func f<S: SampleSource>(_ s: S) throws where S.Buffer == EncodedAudioPacket<AnyAudioCodec> { _ = try ADTSWriter(upstream: s, path: "x.aac") }"#),
        ("audio packets into a video stage",
         #"func f<S: SampleSource>(_ s: S) throws where S.Buffer == EncodedAudioPacket<AAC> { _ = try AnnexBConverter<S, H264>(upstream: s) }"#),
        ("a video track narrowed to an audio codec",
         #"func f(_ demuxer: Demuxer) throws { _ = try demuxer.videoTrack().requiring(AAC.self) }"#),
    ])
    func wrongWiringDoesNotCompile(what: String, snippet: String) throws {
        let result = try Self.typecheck(snippet)
        #expect(result.status != 0, "\(what) compiled")
        #expect(result.stderrText.contains("be equivalent"), "\(what): \(result.stderrText)")
    }
}
