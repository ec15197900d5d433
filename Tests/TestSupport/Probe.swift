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
}
