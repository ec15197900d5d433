import Foundation

/// `ffprobe` as an oracle: stream and format facts of a file, from an independent reader.
public struct ProbeResult {
    public let streams: [[String: Any]]
    public let format: [String: Any]

    public func string(_ key: String, stream: Int = 0) -> String? { streams[stream][key].map { "\($0)" } }
    public func int(_ key: String, stream: Int = 0) -> Int? { string(key, stream: stream).flatMap { Int($0) } }
    public func double(_ key: String, stream: Int = 0) -> Double? { string(key, stream: stream).flatMap { Double($0) } }
    public var duration: Double? { (format["duration"] as? String).flatMap(Double.init) }
    public var bitRate: Int? { (format["bit_rate"] as? String).flatMap { Int($0) } }
}

public enum Probe {
    public static func run(_ path: String) throws -> ProbeResult {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-of", "json", "-show_format", "-show_streams", path])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw TestFailure("ffprobe rejected \(path): \(result.stderrText)")
        }
        return ProbeResult(streams: json["streams"] as? [[String: Any]] ?? [], format: json["format"] as? [String: Any] ?? [:])
    }

    /// Per-packet facts of one stream (`-show_packets`), e.g. to count packets or read timestamps.
    public static func packets(_ path: String, stream: String = "a:0") throws -> [[String: Any]] {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-of", "json", "-select_streams", stream, "-show_packets", path])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw TestFailure("ffprobe -show_packets rejected \(path): \(result.stderrText)")
        }
        return json["packets"] as? [[String: Any]] ?? []
    }

    /// One line per packet of `stream`: `entries` (e.g. `pts,dts`) then the payload's MD5. Equal
    /// lists mean the same payloads (at the same times, when asked for).
    public static func packetHashes(_ path: String, stream: String, entries: String = "") throws -> String {
        let fields = entries.isEmpty ? "packet=data_hash" : "packet=\(entries),data_hash"
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", fields,
                                                    "-show_data_hash", "MD5", "-of", "csv=p=0", path])
        guard result.status == 0 else { throw TestFailure("ffprobe -show_data_hash rejected \(path): \(result.stderrText)") }
        return result.stdoutText
    }

    /// How many samples of the first audio track ffmpeg's decode should give once ended where the
    /// file says the audio ends: an MP4/MOV's edit list (ffprobe's stream start + duration) or its
    /// `iTunSMPB` sample count, counted from the first sample ffmpeg decodes. FFmpeg 5.1 skips the
    /// priming but keeps the padding after that end. nil for other containers and fragmented files
    /// (no samples in the index).
    public static func presentedAudioSamples(_ path: String) throws -> Int? {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                    "format=format_name:format_tags=iTunSMPB:stream=start_pts,duration_ts,time_base,sample_rate,nb_frames",
                                                    "-of", "json", path])
        guard result.status == 0, let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
              let format = json["format"] as? [String: Any], (format["format_name"] as? String)?.hasPrefix("mov,") == true,
              let stream = (json["streams"] as? [[String: Any]])?.first,
              let frames = (stream["nb_frames"] as? String).flatMap({ Int($0) }), frames > 0,
              let start = stream["start_pts"] as? Int, let duration = stream["duration_ts"] as? Int,
              let rate = (stream["sample_rate"] as? String).flatMap({ Int($0) }),
              let timeBase = stream["time_base"] as? String else { return nil }
        let parts = timeBase.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, parts[1] > 0 else { return nil }
        func samples(_ ticks: Int) -> Int { (ticks * parts[0] * rate + parts[1] / 2) / parts[1] }
        var end = samples(start + duration)
        let tag = ((format["tags"] as? [String: Any])?["iTunSMPB"] as? String)?.split(separator: " ")
        if let tag, tag.count >= 4, let valid = Int(tag[3], radix: 16) { end = min(end, samples(start) + valid) }
        let first = try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-read_intervals", "%+#8",
                                                   "-show_entries", "frame=pts", "-of", "csv=p=0", path])
        guard let firstPTS = Int(first.stdoutText.split(separator: "\n").first ?? "") else { return nil }
        return end - samples(firstPTS)
    }
}
