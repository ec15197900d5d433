/// A track that ended before its container said it would: the file was cut (a partial download, a
/// copy that stopped, a recording that was killed). The demuxer delivered every intact packet up to
/// the cut and left out what is missing, including a last packet that is only partly there.
///
/// Packets an edit list leaves out are not missing: the expected count is what the demuxer's index
/// presents, not the sample table's size.
public struct Truncation: Sendable, Equatable, CustomStringConvertible {
    /// The track (container stream index).
    public let track: Int
    /// What `packetsRead` and `packetsExpected` count: packets, or sample frames for PCM (WAV).
    public enum Unit: String, Sendable { case packets, sampleFrames = "sample frames" }

    /// Intact packets (or sample frames) delivered.
    public let packetsRead: Int
    /// Packets the container's index promised, when it has one (MP4/MOV sample tables; a WAV's data size).
    public let packetsExpected: Int?
    public let unit: Unit
    /// Where the intact part ends (the end of the last delivered packet), when known.
    public let end: MediaTime?
    /// How much of the track's declared duration is missing, when the container declares one.
    public let missing: MediaTime?

    public init(track: Int, packetsRead: Int, packetsExpected: Int?, end: MediaTime?, missing: MediaTime?,
                unit: Unit = .packets) {
        self.track = track
        self.packetsRead = packetsRead
        self.packetsExpected = packetsExpected
        self.end = end
        self.missing = missing
        self.unit = unit
    }

    public var description: String {
        var parts: [String] = []
        if let packetsExpected {
            parts.append("\(packetsExpected - packetsRead) of \(packetsExpected) \(unit.rawValue)")
        } else {
            parts.append(unit == .packets ? "its last packet" : "part of its last sample frame")
        }
        if let missing, missing.value > 0 { parts.append("\(String(format1: missing.seconds)) s") }
        let after = end.map { " after \($0)" } ?? ""
        return "track \(track) is cut short\(after): \(parts.joined(separator: ", ")) missing"
    }
}
