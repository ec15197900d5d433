import Foundation

/// Where things are, relative to this source file: the package root, the built `avpipe`, and the
/// shared reference corpus (present beside the checkout in CI, absent in a user's clone).
public enum Locations {
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/TestSupport/Locations.swift
        return url.path
    }()

    /// The `avpipe` built beside the running test bundle (`swift test` builds it).
    public static let avpipe: String = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("avpipe").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        for configuration in ["debug", "release"] {
            let candidate = "\(packageRoot)/.build/\(configuration)/avpipe"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "\(packageRoot)/.build/debug/avpipe"
    }()

    /// The build folder holding this test run's products and `Modules/` (debug, release or a
    /// sanitizer scratch path alike).
    public static let buildProducts: String = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" && !url.lastPathComponent.hasSuffix(".xctest") { url.deleteLastPathComponent() }
        return url.path == "/" ? packageRoot + "/.build/debug" : url.deletingLastPathComponent().path
    }()

    public static let corpus = URL(fileURLWithPath: packageRoot).deletingLastPathComponent()
        .appendingPathComponent("shared/corpus").path

    /// Whether the reference corpus is reachable; corpus tests skip (with a notice) when it is not.
    public static var corpusAvailable: Bool {
        let available = FileManager.default.fileExists(atPath: corpus + "/MANIFEST.md")
        if !available { print("notice: \(corpus) not found; skipping reference-corpus tests") }
        return available
    }

    public static func corpusFile(_ name: String) -> String { "\(corpus)/\(name)" }
}

/// Runs the built `avpipe` with `arguments`.
@discardableResult
public func avpipe(_ arguments: [String], stdin: Data? = nil) throws -> ProcessResult {
    try Subprocess.run(Locations.avpipe, arguments, stdin: stdin)
}
