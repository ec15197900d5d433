import Foundation
import Testing
import TestSupport
import AVPipeline

/// Records, in pull order, which input produced which packet (decode time and duration in seconds).
final class PullLog {
    var entries: [(input: Int, dts: Double, duration: Double)] = []
}

/// Forwards an AAC stream, optionally slowly, and logs every packet the muxer pulls from it.
final class LoggedSource<Upstream: SampleSource>: SampleSource where Upstream.Buffer == EncodedAudioPacket<AAC> {
    typealias Buffer = EncodedAudioPacket<AAC>
    private let upstream: Upstream
    private let input: Int
    private let log: PullLog
    private let delay: Duration?

    init(_ upstream: Upstream, input: Int, log: PullLog, delay: Duration? = nil) {
        self.upstream = upstream
        self.input = input
        self.log = log
        self.delay = delay
    }

    var outputFormat: EncodedAudioFormat { upstream.outputFormat }

    func next() async throws -> EncodedAudioPacket<AAC>? {
        if let delay { try await Task.sleep(for: delay) }
        let buffer = try await upstream.next()
        if let buffer, let dts = buffer.decodeTime {
            log.entries.append((input, dts.seconds, buffer.duration?.seconds ?? 0))
        }
        return buffer
    }
}

/// Packets of every stream in file order (by byte position), from ffprobe.
func packetsInFileOrder(_ path: String) throws -> [(stream: Int, dts: Double)] {
    let result = try Subprocess.run("ffprobe", ["-v", "error", "-of", "json", "-show_entries",
                                                "packet=stream_index,dts_time,pos", "-show_packets", path])
    let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
    let packets = json?["packets"] as? [[String: Any]] ?? []
    return packets
        .compactMap { p -> (Int, Int, Double)? in
            guard let stream = p["stream_index"] as? Int, let pos = (p["pos"] as? String).flatMap(Int.init),
                  let dts = (p["dts_time"] as? String).flatMap(Double.init) else { return nil }
            return (pos, stream, dts)
        }
        .sorted { $0.0 < $1.0 }
        .map { ($0.1, $0.2) }
}

@Suite struct MuxerTests {
    @Test func interleavesBySlowAndFastInputWithABoundedBuffer() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("a.wav"), seconds: 2, sampleRate: 44_100, channels: 2)
        try MediaFactory.tone(folder.file("b.wav"), seconds: 3, sampleRate: 48_000, channels: 1)
        let log = PullLog()
        let fast = LoggedSource(try FileCapture(path: folder.file("a.wav")).encodeAAC(), input: 0, log: log)
        let slow = LoggedSource(try FileCapture(path: folder.file("b.wav")).encodeAAC(), input: 1, log: log,
                                delay: .milliseconds(1))
        let muxer = try Muxer(path: folder.file("out.mp4"))
        try muxer.addAudio(fast)
        try muxer.addAudio(slow)
        let summary = try await muxer.run()

        // The buffer holds one waiting packet per input, never more.
        #expect(summary.bufferHighWaterMark <= 2)
        // No input ran ahead: whenever an input is pulled, the packet it last gave (just written)
        // was not later than the other input's waiting packet. (Skipped once the other input may
        // have ended, i.e. after it gave its last packet.)
        var latest: [Double?] = [nil, nil]
        let lastOf = [0, 1].map { input in log.entries.last { $0.input == input }!.dts }
        for entry in log.entries {
            let other = 1 - entry.input
            if let mine = latest[entry.input], let theirs = latest[other], theirs < lastOf[other] {
                #expect(mine <= theirs + 1e-9, "input \(entry.input) ran ahead: wrote \(mine) while \(theirs) waited")
            }
            latest[entry.input] = entry.dts
        }
        // Independent reader: every packet is there, and the file is in decode-time order.
        let counts = [log.entries.filter { $0.input == 0 }.count, log.entries.filter { $0.input == 1 }.count]
        #expect(summary.tracks.map(\.packets) == counts)
        #expect(try Probe.packets(folder.file("out.mp4"), stream: "a:0").count == counts[0])
        #expect(try Probe.packets(folder.file("out.mp4"), stream: "a:1").count == counts[1])
        let order = try packetsInFileOrder(folder.file("out.mp4"))
        #expect(order.count == counts[0] + counts[1])
        for (a, b) in zip(order, order.dropFirst()) {
            #expect(a.dts <= b.dts + 1e-9, "file order breaks decode-time order: \(a) then \(b)")
        }
        #expect(folder.contents() == ["a.wav", "b.wav", "out.mp4"])
    }

    @Test func m4aRoundTripsToTheSameADTSBytes() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 2, channels: 2)
        try await FileCapture(path: folder.file("in.wav")).encodeAAC().writeADTS(to: folder.file("reference.aac"))
        let muxer = try Muxer(path: folder.file("out.m4a"))
        try muxer.addAudio(try FileCapture(path: folder.file("in.wav")).encodeAAC())
        try await muxer.run()
        // ffmpeg's own demuxer + ADTS muxer take the M4A apart again.
        try MediaFactory.ffmpeg(["-v", "error", "-i", folder.file("out.m4a"), "-c", "copy", "-f", "adts", folder.file("back.aac")])
        #expect(try fileBytes(folder.file("back.aac")) == fileBytes(folder.file("reference.aac")))
    }

    @Test(arguments: [false, true])
    func faststartDecidesWhetherMoovPrecedesMdat(faststart: Bool) async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 1)
        let muxer = try Muxer(path: folder.file("out.m4a"), options: .testing(faststart: faststart))
        try muxer.addAudio(try FileCapture(path: folder.file("in.wav")).encodeAAC())
        try await muxer.run()
        let types = try ContainerOracles.topLevelBoxes(folder.file("out.m4a")).map(\.type)
        let moov = try #require(types.firstIndex(of: "moov"))
        let mdat = try #require(types.firstIndex(of: "mdat"))
        #expect((moov < mdat) == faststart, "boxes: \(types)")
        #expect(types.first == "ftyp")
    }

    @Test func fragmentedOutputIsASeriesOfFragments() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 5)
        let muxer = try Muxer(path: folder.file("out.mp4"), options: .testing(fragmented: true))
        try muxer.addAudio(try FileCapture(path: folder.file("in.wav")).encodeAAC())
        let summary = try await muxer.run()
        let types = try ContainerOracles.topLevelBoxes(folder.file("out.mp4")).map(\.type)
        #expect(Array(types.prefix(2)) == ["ftyp", "moov"])
        // One-second fragments: about five moof+mdat pairs.
        #expect(types.filter { $0 == "moof" }.count >= 4, "boxes: \(types)")
        #expect(types.filter { $0 == "moof" }.count == types.filter { $0 == "mdat" }.count)
        #expect(try Probe.packets(folder.file("out.mp4")).count == summary.tracks[0].packets)
    }

    @Test func independentParsersAcceptTheOutput() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 2, channels: 2)
        for (name, fragmented) in [("plain.m4a", false), ("fragmented.mp4", true)] {
            let muxer = try Muxer(path: folder.file(name), options: .testing(fragmented: fragmented))
            try muxer.addAudio(try FileCapture(path: folder.file("in.wav")).encodeAAC())
            try await muxer.run()
            let tree = try ContainerOracles.atomicParsley(folder.file(name))
            #expect(tree.contains("Atom mp4a") || tree.contains("mp4a"), "\(name): \(tree)")
            let tracks = try ContainerOracles.mkvmergeTracks(folder.file(name))
            #expect(tracks.count == 1)
            #expect((tracks.first?["codec"] as? String)?.contains("AAC") == true, "\(name): \(tracks)")
            // 2 s of 44.1 kHz stereo S16 is 352800 bytes; allow the AAC priming/padding frames.
            let decoded = try ContainerOracles.gstreamerDecodedBytes(folder.file(name), video: false, in: folder)
            #expect(abs(decoded - 352_800) <= 2 * 1024 * 4, "\(name): GStreamer decoded \(decoded) bytes")
        }
    }

    @Test func unknownExtensionIsRefused() throws {
        let folder = TemporaryDirectory()
        #expect(throws: AVPipelineError.unsupportedFormat("cannot tell the container from '\(folder.file("out.xyz"))': use \(MuxContainer.extensionsText)")) {
            try Muxer(path: folder.file("out.xyz"))
        }
        #expect(folder.contents().isEmpty)
    }

    @Test func unwritableFolderIsATypedErrorAndLeavesNothing() throws {
        do {
            _ = try Muxer(path: "/proc/avpipe-test-out.mp4")
            Issue.record("expected an error")
        } catch let error as AVPipelineError {
            #expect(error.category == .output, "\(error)")
        }
        let folder = TemporaryDirectory()
        let readOnly = folder.file("ro")
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o555])
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: readOnly) }
        guard geteuid() != 0 else {
            print("notice: running as root, permissions do not stop writes; read-only folder check skipped")
            return
        }
        for fragmented in [false, true] {
            #expect(throws: AVPipelineError.self) {
                try Muxer(path: readOnly + "/out.mp4", options: .testing(fragmented: fragmented))
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly).isEmpty)
    }

    /// Cancelled mid-write (deterministically: from the progress callback once 2.5 s are written),
    /// a plain mux leaves nothing, while a fragmented one — a live recording being stopped — keeps
    /// a complete file of what it wrote, which ffprobe reads to its end.
    @Test func cancellingMidWayKeepsAFragmentedRecordingOnly() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 5)
        // The muxer (owner of the temporary file) is released when this returns.
        func cancelledRun(fragmented: Bool) async throws {
            let muxer = try Muxer(path: folder.file("out.mp4"), options: .testing(fragmented: fragmented))
            try muxer.addAudio(try FileCapture(path: folder.file("in.wav")).encodeAAC())
            let task = Task {
                try await muxer.run(progress: { position in
                    if position.seconds >= 2.5 { withUnsafeCurrentTask { $0?.cancel() } }
                })
            }
            await #expect(throws: AVPipelineError.cancelled) { try await task.value }
        }
        try await cancelledRun(fragmented: false)
        #expect(folder.contents() == ["in.wav"])
        try await cancelledRun(fragmented: true)
        #expect(folder.contents() == ["in.wav", "out.mp4"])
        let probe = try Probe.run(folder.file("out.mp4"))
        let seconds = try #require(probe.duration)
        #expect(seconds >= 2.5 && seconds < 4, "kept \(seconds) s")
        #expect(try Probe.packets(folder.file("out.mp4")).count >= Int(2.5 * 44_100 / 1024))
    }

    /// Cancelled before anything was written, even a fragmented run leaves no file.
    @Test func failedRunLeavesNoFileEvenWhenFragmented() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 1)
        for fragmented in [false, true] {
            let muxer = try Muxer(path: folder.file("out.mp4"), options: .testing(fragmented: fragmented))
            try muxer.addAudio(try FileCapture(path: folder.file("in.wav")).encodeAAC())
            let task = Task { try await muxer.run() }
            task.cancel()
            await #expect(throws: AVPipelineError.cancelled) { try await task.value }
        }
        #expect(folder.contents() == ["in.wav"])
    }

    /// The library's HLS output: a demuxed H.264 track and freshly encoded AAC, cut into
    /// keyframe-aligned segments (TS, or fMP4 behind an init segment) that ffprobe reads whole.
    @Test(arguments: HLSOptions.Segments.allCases)
    func writesAnHLSStreamFromTypedSources(segments: HLSOptions.Segments) async throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("v.mp4"), seconds: 6,
                                         videoArguments: ["-g", "25", "-keyint_min", "25", "-sc_threshold", "0"], audio: false)
        try MediaFactory.tone(folder.file("a.wav"), seconds: 6)
        let playlist = folder.file("s.m3u8")
        var options = Muxer.Options(container: .hls)
        options.hls = HLSOptions(segmentDuration: .seconds(2), segments: segments)
        let muxer = try Muxer(path: playlist, options: options)
        try muxer.addVideo(try Demuxer(path: movie).videoTrack())
        try muxer.addAudio(try FileCapture(path: folder.file("a.wav")).encodeAAC())
        try await muxer.run()

        let lines = try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.contains("#EXT-X-ENDLIST") && lines.contains("#EXT-X-PLAYLIST-TYPE:VOD"), "\(lines)")
        let names = lines.filter { !$0.hasPrefix("#") }
        let fmp4 = segments == .fmp4
        #expect(names == (0..<3).map { "s\($0).\(fmp4 ? "m4s" : "ts")" }, "\(lines)")
        let initBytes = fmp4 ? try fileBytes(folder.file("s-init.mp4")) : []
        for name in names {
            // An fMP4 segment is read behind its init segment, as a player joins them.
            let segment = folder.file("joined-\(name).\(fmp4 ? "mp4" : "ts")")
            try Data(initBytes + fileBytes(folder.file(name))).write(to: URL(fileURLWithPath: segment))
            #expect(try Probe.run(segment).streams.compactMap { $0["codec_name"] as? String }.sorted() == ["aac", "h264"], "\(name)")
            let pictures = try Probe.packets(segment, stream: "v:0")
            #expect((pictures.first?["flags"] as? String)?.hasPrefix("K") == true, "\(name) starts with a keyframe")
            #expect(pictures.count == 50, "\(name): 2 s of pictures, got \(pictures.count)")
        }
        let frames = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                    "stream=nb_read_frames", "-of", "csv=p=0", playlist])
        #expect(frames.stdoutText.split(separator: "\n").first == "150", "\(frames.stdoutText) \(frames.stderrText)")
        let samples = try Subprocess.run("ffmpeg", ["-v", "error", "-i", playlist, "-vn", "-f", "s16le", "-ac", "1", "-"]).stdout.count / 2
        #expect(abs(samples - 6 * 44_100) <= 2 * 1024, "ffmpeg decodes \(samples) samples")
    }
}

extension Muxer.Options {
    /// The defaults with the one field these tests vary.
    static func testing(faststart: Bool = true, fragmented: Bool = false) -> Muxer.Options {
        var options = Muxer.Options()
        (options.faststart, options.fragmented) = (faststart, fragmented)
        return options
    }
}
