import Foundation
import Testing
import TestSupport
@testable import AVPipeline

/// The safe-by-default input policy: an input may not make the library open anything else.
@Suite struct InputPolicyTests {
    /// Opens `path` and pulls every packet of every track (what demux/decode would do).
    static func readAll(_ path: String, options: Demuxer.Options = .init()) async throws -> Int {
        let demuxer = try Demuxer(path: path, options: options)
        var packets = 0
        for index in demuxer.info.audioTracks.indices {
            let track = try demuxer.audioTrack(index)
            while try await track.next() != nil { packets += 1 }
        }
        for index in demuxer.info.videoTracks.indices {
            let track = try demuxer.videoTrack(index)
            while try await track.next() != nil { packets += 1 }
        }
        return packets
    }

    static func expectRefused(_ path: String, options: Demuxer.Options = .init(), naming needle: String,
                              sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            let packets = try await readAll(path, options: options)
            Issue.record("'\(path)' was read (\(packets) packets)", sourceLocation: sourceLocation)
        } catch let error as AVPipelineError {
            guard case .inputPolicy(let refusedPath, let reason) = error else {
                Issue.record("expected inputPolicy, got \(error)", sourceLocation: sourceLocation); return
            }
            #expect(refusedPath == path, sourceLocation: sourceLocation)
            #expect(reason.contains(needle), "\(reason)", sourceLocation: sourceLocation)
            #expect(error.category == .input, sourceLocation: sourceLocation)
        } catch {
            Issue.record("untyped error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func playlistsAndConcatListsAreRefusedByDefault() async throws {
        let folder = TemporaryDirectory()
        let segment = try IndirectInputs.segment(folder.file("a.ts"))
        let listener = try LoopbackListener()
        let inputs = [
            try IndirectInputs.playlist(folder, "local.m3u8", entries: ["a.ts"]),
            try IndirectInputs.playlist(folder, "absolute.m3u8", entries: [segment]),
            try IndirectInputs.playlist(folder, "passwd.m3u8", entries: ["/etc/passwd"]),
            try IndirectInputs.playlist(folder, "net.m3u8", entries: [listener.url()]),
            try IndirectInputs.concatList(folder, "local.ffconcat", entries: ["a.ts"]),
            try IndirectInputs.concatList(folder, "passwd.ffconcat", entries: ["/etc/passwd"]),
            try IndirectInputs.concatList(folder, "net.ffconcat", entries: [listener.url()]),
        ]
        for input in inputs {
            await Self.expectRefused(input, naming: "indirection is not allowed")
            #expect(throws: AVPipelineError.self) { try FileCapture(path: input) }
        }
        #expect(!listener.connectionArrived, "a crafted input made the library connect to the network")
    }

    @Test func allowedIndirectionReadsLocalFilesButNeverTheNetwork() async throws {
        let folder = TemporaryDirectory()
        _ = try IndirectInputs.segment(folder.file("a.ts"))
        var options = Demuxer.Options()
        options.allowIndirection = true
        // Positive control: the same crafted inputs are readable once allowed, so the refusals above
        // are the policy's doing and not broken test files.
        for input in [try IndirectInputs.playlist(folder, entries: ["a.ts"]),
                      try IndirectInputs.concatList(folder, entries: ["a.ts"])] {
            #expect(try await Self.readAll(input, options: options) > 30)
        }
        let listener = try LoopbackListener()
        let network = try IndirectInputs.playlist(folder, "net.m3u8", entries: [listener.url()])
        await Self.expectRefused(network, options: options, naming: listener.url())
        #expect(!listener.connectionArrived, "an allowed playlist made the library connect to the network")
    }

    /// With the demuxer blocklist emptied, the `io_open` guard alone stops the playlist — and names
    /// the segment it asked for.
    @Test func nestedOpensAreRefusedEvenWhenTheDemuxerIsNotBlocked() async throws {
        let folder = TemporaryDirectory()
        _ = try IndirectInputs.segment(folder.file("a.ts"))
        let playlist = try IndirectInputs.playlist(folder, entries: ["a.ts"])
        var policy = InputPolicy()
        policy.refusedDemuxers = []
        await Self.expectRefused(playlist, options: .init(inputPolicy: policy), naming: "a.ts")
    }

    @Test func colonsInPathsAreNeverProtocols() throws {
        let folder = TemporaryDirectory()
        let segment = try IndirectInputs.segment(folder.file("a.ts"))
        for path in ["concat:\(segment)|\(segment)", "subfile:\(segment)", "http://127.0.0.1:9/x.ts"] {
            #expect(throws: AVPipelineError.fileNotFound(path: path)) { try Demuxer(path: path) }
        }
    }

    // MARK: limits

    /// A 16-bit PCM WAV header declaring `channels` and `sampleRate`, followed by a little silence.
    static func wav(channels: UInt16, sampleRate: UInt32) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        let data = [UInt8](repeating: 0, count: Int(channels) * 2 * 64)
        let blockAlign = UInt32(channels) * 2
        return Array("RIFF".utf8) + le32(UInt32(36 + data.count)) + Array("WAVEfmt ".utf8) + le32(16)
            + le16(1) + le16(channels) + le32(sampleRate) + le32(sampleRate &* blockAlign)
            + le16(UInt16(truncatingIfNeeded: blockAlign)) + le16(16) + Array("data".utf8) + le32(UInt32(data.count)) + data
    }

    static func expectBeyondLimits(_ make: () throws -> Any, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) { _ = try make() } throws: { error in
            guard case .exceedsLimits = error as? AVPipelineError else { return false }
            return true
        }
    }

    @Test func absurdChannelCountsAndSampleRatesAreRefused() throws {
        // Control: a sane header is read, so the refusals below come from the values alone.
        #expect(try Demuxer(bytes: Self.wav(channels: 2, sampleRate: 48_000)).info.audioTracks.first?.channels == 2)
        Self.expectBeyondLimits { try Demuxer(bytes: Self.wav(channels: 200, sampleRate: 48_000)) }
        Self.expectBeyondLimits { try Demuxer(bytes: Self.wav(channels: 1, sampleRate: 50_000_000)) }
        let folder = TemporaryDirectory()
        let path = folder.file("wide.wav")
        try Data(Self.wav(channels: 200, sampleRate: 48_000)).write(to: URL(fileURLWithPath: path))
        Self.expectBeyondLimits { try FileCapture(path: path) }
        // The limits are the policy's: a stricter one refuses stereo.
        Self.expectBeyondLimits {
            try Demuxer(bytes: Self.wav(channels: 2, sampleRate: 48_000),
                        options: .init(inputPolicy: .init(maxChannels: 1)))
        }
    }

    @Test func absurdVideoDimensionsAreRefused() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 1, audio: false)
        var bytes = try fileBytes(input)
        #expect(try Demuxer(bytes: bytes).info.videoTracks.first?.width == 320)
        // The avc1 sample entry's width field (after the stsd box), set to 40000.
        let stsd = try #require(Self.find("stsd", in: bytes))
        let entry = try #require(Self.find("avc1", in: bytes, from: stsd))
        bytes[entry + 28] = UInt8(40_000 >> 8)
        bytes[entry + 29] = UInt8(40_000 & 0xFF)
        Self.expectBeyondLimits { try Demuxer(bytes: bytes) }
    }

    static func find(_ tag: String, in bytes: [UInt8], from start: Int = 0) -> Int? {
        let needle = Array(tag.utf8)
        return (start..<(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    @Test func invalidPolicyValuesAreUsageErrors() {
        #expect { try Demuxer(bytes: [1, 2, 3], options: .init(inputPolicy: .init(probeBytes: 0))) } throws: {
            ($0 as? AVPipelineError)?.category == .usage
        }
    }

    /// A policy names only protocols the library can read through (no network protocol yet), and
    /// at least one; the default is the local file alone.
    @Test(arguments: [Set<String>(), ["https"], ["file", "tcp"]])
    func protocolsBeyondTheReadableOnesAreUsageErrors(_ protocols: Set<String>) {
        #expect(InputPolicy.default.protocols == ["file"])
        #expect { try Demuxer(bytes: [1, 2, 3], options: .init(inputPolicy: .init(protocols: protocols))) } throws: {
            ($0 as? AVPipelineError)?.category == .usage && "\($0)".contains("input protocols")
        }
    }

    /// A URL and a capture device are inputs of their own kind: a URL is read only through a
    /// network scheme's protocols (never `file`, never one this FFmpeg lacks); a device is opened
    /// by its libavdevice demuxer, and one that is not there is unavailable, named.
    @Test func urlAndDeviceInputsAreInputsOfTheirOwnKind() {
        for url in ["ftp://127.0.0.1/movie.mp4", "file:///etc/passwd", "data:video/mp2t;base64,AAAA"] {
            #expect { try InputContext(source: .url(url)) } throws: {
                guard case AVPipelineError.inputPolicy(let path, _) = $0 else { return false }
                return path == url
            }
        }
        let camera = DeviceOpening(kind: .camera, demuxer: "v4l2", name: "/dev/video9", options: [:], label: "/dev/video9")
        #expect { try InputContext(source: .device(camera)) } throws: {
            guard case AVPipelineError.deviceUnavailable(.camera, let reason) = $0 else { return false }
            return "\($0)".hasPrefix("no camera available") && reason.contains("/dev/video9")
        }
    }

    // MARK: memory input

    /// The in-memory path (custom AVIO) reads exactly what the file path reads.
    @Test func memoryInputMatchesTheFile() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 1)
        let fromFile = try Demuxer(path: input)
        let fromMemory = try Demuxer(bytes: try fileBytes(input), name: "in-memory")
        #expect(fromMemory.info.path == "in-memory")
        #expect(fromMemory.info.tracks.map(\.codec) == fromFile.info.tracks.map(\.codec))
        #expect(fromMemory.info.duration == fromFile.info.duration)
        let (a, b) = (try fromFile.videoTrack(), try fromMemory.videoTrack())
        var count = 0
        while let x = try await a.next() {
            let y = try #require(try await b.next())
            #expect(x.withUnsafeBytes { Array($0) } == y.withUnsafeBytes { Array($0) })
            #expect(x.presentationTime == y.presentationTime)
            count += 1
        }
        #expect(try await b.next() == nil)
        #expect(count == 25)
        #expect(throws: AVPipelineError.notAMediaFile(path: "<memory>", reason: "the input is empty")) { try Demuxer(bytes: []) }
    }
}
