// swift-tools-version:6.0
import PackageDescription

// Every Swift target gets the same strictness: Swift 6 mode plus nonisolated(nonsending) async
// functions, so a pipeline's non-Sendable stages run on whatever task pulls them.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InferIsolatedConformances"),
]

#if os(Linux) && arch(x86_64)
// FFmpeg is loaded on first use by CFFmpegLoader's jump stubs (see ffmpeg_loader.c), so nothing links
// it and `avpipe --version` does not pay for its ~140 libraries; Debian's headers are on the default
// include path.
let ffmpegPkgConfig: String? = nil
let ffmpegLinks: [LinkerSetting] = []
#else
let ffmpegPkgConfig: String? = "libavformat"
let ffmpegLinks: [LinkerSetting] = ["avdevice", "avformat", "avcodec", "avutil", "swresample", "swscale"].map { .linkedLibrary($0) }
#endif

let package = Package(
    name: "avpipe",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AVPipeline", targets: ["AVPipeline"]),
        // The devices (SDL2 window and audio, X11/V4L2 capture) behind the core's device protocols.
        .library(name: "AVPipelineDevices", targets: ["AVPipelineDevices"]),
        .executable(name: "avpipe", targets: ["avpipe-cli"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation --target AVPipeline` (the DocC catalog in
        // Sources/AVPipeline/AVPipeline.docc); a command plugin, so nothing links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: ffmpegPkgConfig,
            providers: [
                .apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev", "libswscale-dev"]),
                .brew(["ffmpeg"]),
            ]
        ),
        // The device layer of AVPipelineDevices (window, audio out and in): the same SDL2 ffplay uses. Headers only, found as
        // <SDL2/SDL.h>; CSDL2Loader loads the library on first use, so only `play` pays for it.
        .systemLibrary(
            name: "CSDL2",
            providers: [.apt(["libsdl2-dev"]), .brew(["sdl2"])]
        ),
        .target(name: "CSDL2Loader"),
        // x86_64 Linux: FFmpeg functions as jump stubs, the libraries loaded on first use.
        .target(name: "CFFmpegLoader", dependencies: ["CFFmpeg"]),
        .target(
            name: "AVPipeline",
            dependencies: ["CFFmpeg", "CFFmpegLoader"],
            swiftSettings: strict,
            linkerSettings: ffmpegLinks
        ),
        // The concrete devices, apart so that a transcoding service links no window system: SDL2
        // (window, audio output and input) and the X11/V4L2 capture descriptions.
        .target(
            name: "AVPipelineDevices",
            dependencies: ["AVPipeline", "CFFmpeg", "CSDL2", "CSDL2Loader"],
            swiftSettings: strict
        ),
        .target(name: "CStopSignals"),
        .target(name: "CAllocatorTuning"),
        .executableTarget(
            name: "avpipe-cli",
            dependencies: [
                "AVPipeline",
                "AVPipelineDevices",
                "CStopSignals",
                "CAllocatorTuning",
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
            name: "AVPipelineDevicesTests",
            dependencies: ["AVPipelineDevices", "AVPipeline", "TestSupport"],
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
