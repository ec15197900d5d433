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
        // The audio device layer (AudioRenderer): the same SDL2 ffplay uses. Headers only, found as
        // <SDL2/SDL.h>; CSDL2Loader loads the library on first use, so only `play` pays for it.
        .systemLibrary(
            name: "CSDL2",
            providers: [.apt(["libsdl2-dev"]), .brew(["sdl2"])]
        ),
        .target(name: "CSDL2Loader"),
        .target(
            name: "AVPipeline",
            dependencies: ["CFFmpeg", "CSDL2", "CSDL2Loader"],
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
