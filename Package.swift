// swift-tools-version:6.0
import PackageDescription

// Every Swift target gets the same strictness: Swift 6 mode plus nonisolated(nonsending) async
// functions, so a pipeline's non-Sendable stages run on whatever task pulls them.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InferIsolatedConformances"),
]

let package = Package(
    name: "avpipe",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AVPipeline", targets: ["AVPipeline"]),
        .executable(name: "avpipe", targets: ["avpipe-cli"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [
                .apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev"]),
                .brew(["ffmpeg"]),
            ]
        ),
        .target(
            name: "AVPipeline",
            dependencies: ["CFFmpeg"],
            swiftSettings: strict
        ),
        .target(name: "CStopSignals"),
        .executableTarget(
            name: "avpipe-cli",
            dependencies: [
                "AVPipeline",
                "CStopSignals",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // Fuzz harnesses (scripts/fuzz builds them with libFuzzer; a plain build replays files).
        // Outside Sources/: it is test code, and may use Foundation as an oracle.
        .executableTarget(
            name: "avpipe-fuzz",
            dependencies: ["AVPipeline", "CFFmpeg"],
            path: "Fuzz/avpipe-fuzz",
            swiftSettings: strict
        ),
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AVPipelineTests",
            dependencies: ["AVPipeline", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AvpipeCLITests",
            dependencies: ["avpipe-cli", "TestSupport"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
