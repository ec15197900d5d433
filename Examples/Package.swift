// swift-tools-version:6.0
import PackageDescription

// Small programs written against the AVPipeline library alone, as a new user would write them: each
// does one job the `avpipe` command line does, in at most 40 lines. Copy one to start a program.
// Build them all with `swift build --package-path Examples` from the repository's root.
let library: Target.Dependency = .product(name: "AVPipeline", package: "avpipe")

let package = Package(
    name: "Examples",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The library in the folder above: these programs always build against the code beside them.
        .package(name: "avpipe", path: ".."),
    ],
    targets: [
        .executableTarget(name: "draw", dependencies: [library]),
        .executableTarget(name: "hls", dependencies: [library]),
        .executableTarget(name: "record-screen", dependencies: [library]),
        .executableTarget(name: "push", dependencies: [library]),
        .executableTarget(name: "play", dependencies: [library]),
        // Last: it uses TranscodeSession, which the library gains with the sessions of issue 39.
        .executableTarget(name: "transcode", dependencies: [library]),
    ],
    swiftLanguageModes: [.v6]
)
