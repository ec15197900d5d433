import Foundation

/// One small, valid file of every container avpipe reads, made once per test run with the ffmpeg
/// CLI, plus byte-level damage (truncation, random bytes) derived from them. The bad-input matrix
/// copies what it needs into each case's own folder, so the originals are never touched.
public enum SampleMedia: String, CaseIterable, Sendable {
    case wav, mp4Faststart = "mp4-faststart", mp4, m4a, mov, mkv, ts, adts, h264, h265

    public var fileName: String {
        switch self {
        case .wav: "in.wav"
        case .mp4Faststart, .mp4: "in.mp4"
        case .m4a: "in.m4a"
        case .mov: "in.mov"
        case .mkv: "in.mkv"
        case .ts: "in.ts"
        case .adts: "in.aac"
        case .h264: "in.h264"
        case .h265: "in.h265"
        }
    }

    public var hasAudio: Bool { ![.h264, .h265].contains(self) }
    public var hasVideo: Bool { ![.wav, .m4a, .adts].contains(self) }
    /// The raw-stream extension that fits the video track.
    public var videoExtension: String { self == .h265 ? "h265" : "h264" }
    /// Audio that is AAC (everything but the PCM WAV).
    public var hasAAC: Bool { hasAudio && self != .wav }

    /// The cached file (made on first use; safe from parallel tests).
    public var path: String { get throws { try Self.cache.file(self) } }

    /// Byte offsets to cut `size` bytes at: inside the first header, a quarter, half, three
    /// quarters, and one byte short of the end (the last index box or frame is incomplete).
    public static func cutPoints(size: Int) -> [Int] {
        Array(Set([12, size / 4, size / 2, size * 3 / 4, size - 1].filter { $0 > 0 && $0 < size })).sorted()
    }

    /// Copies the first `length` bytes of `source` to `destination`.
    public static func truncate(_ source: String, to length: Int, as destination: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        try data.prefix(length).write(to: URL(fileURLWithPath: destination))
    }

    /// Deterministic pseudo-random bytes (no media signature a prober could latch onto by chance
    /// differs from run to run).
    public static func randomBytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
        var state = seed
        return Data((0..<count).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        })
    }

    /// A 6 s 640x480 movie (H.264 + AAC, ~1 MB) and a 10 s WAV: outputs big enough to fill a tiny disk.
    public static var bigMovie: String { get throws { try cache.extra("big.mp4") { path in
        try DemuxMedia.movie(path, seconds: 6, size: "640x480", videoArguments: ["-preset", "ultrafast", "-crf", "18"])
    } } }
    /// A 6 s 640x480 lossless noise movie (~60 MB): demuxing it takes long enough to be interrupted.
    public static var hugeMovie: String { get throws { try cache.extra("huge.mp4") { path in
        try DemuxMedia.movie(path, seconds: 6, size: "640x480",
                             videoArguments: ["-vf", "noise=alls=100:allf=t", "-preset", "ultrafast", "-qp", "0"])
    } } }
    /// A minute of mono AAC (ADTS): decoding it takes long enough to be interrupted.
    public static var longAAC: String { get throws { try cache.extra("long.aac") { path in
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=60", "-c:a", "aac", path])
    } } }
    public static var bigWAV: String { get throws { try cache.extra("big.wav") { try MediaFactory.tone($0, seconds: 10) } } }
    /// An MKV with Opus audio and VP8 video: codecs avpipe can read but not write to ADTS/Annex B/M4A.
    public static var opusVP8: String { get throws { try cache.extra("opus-vp8.mkv") { path in
        try DemuxMedia.movie(path, seconds: 1, videoCodec: "libvpx", extraArguments: ["-c:a", "libopus"])
    } } }
    /// An MP3 file (compressed audio where encode wants PCM).
    public static var mp3: String { get throws { try cache.extra("in.mp3") { path in
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "libmp3lame", path])
    } } }

    private static let cache = Cache()

    private final class Cache: @unchecked Sendable {  // every access goes through `lock`
        private let lock = NSLock()
        private let folder: String
        private var made: Set<String> = []

        init() {
            folder = NSTemporaryDirectory() + "avpipe-sample-media-\(getpid())"
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "avpipe-sample-media-\(getpid())") }
        }

        func file(_ kind: SampleMedia) throws -> String {
            try extra("\(kind.rawValue)/\(kind.fileName)") { try kind.make($0) }
        }

        func extra(_ name: String, _ make: (String) throws -> Void) throws -> String {
            try lock.withLock {
                let path = "\(folder)/\(name)"
                if !made.contains(name) {
                    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                            withIntermediateDirectories: true)
                    try make(path)
                    made.insert(name)
                }
                return path
            }
        }
    }

    private func make(_ path: String) throws {
        let x264 = ["-preset", "ultrafast", "-g", "12"]
        switch self {
        case .wav: try MediaFactory.tone(path, seconds: 1)
        case .mp4Faststart: try DemuxMedia.movie(path, seconds: 1, videoArguments: x264, extraArguments: ["-movflags", "+faststart"])
        case .mp4, .mov, .mkv, .ts: try DemuxMedia.movie(path, seconds: 1, videoArguments: x264)
        case .m4a, .adts: try DemuxMedia.movie(path, seconds: 1, video: false)
        case .h264: try DemuxMedia.movie(path, seconds: 1, videoArguments: x264, audio: false)
        case .h265:
            try DemuxMedia.movie(path, seconds: 1, videoCodec: "libx265",
                                 videoArguments: ["-preset", "ultrafast", "-x265-params", "log-level=error"], audio: false)
        }
    }
}
