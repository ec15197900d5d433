/// A track that ended before its container said it would: the file was cut (a partial download, a
/// copy that stopped, a recording that was killed). The demuxer delivered every intact packet up to
/// the cut and left out what is missing, including a last packet that is only partly there.
///
/// Packets an edit list leaves out are not missing: the expected count is what the demuxer's index
/// presents, not the sample table's size.
public struct Truncation: Sendable, Equatable, CustomStringConvertible {
    /// The track (container stream index).
    public let track: Int
    /// Intact packets delivered.
    public let packetsRead: Int
    /// Packets the container's index promised, when it has one (MP4/MOV sample tables).
    public let packetsExpected: Int?
    /// Where the intact part ends (the end of the last delivered packet), when known.
    public let end: MediaTime?
    /// How much of the track's declared duration is missing, when the container declares one.
    public let missing: MediaTime?

    public var description: String {
        var parts: [String] = []
        if let packetsExpected {
            parts.append("\(packetsExpected - packetsRead) of \(packetsExpected) packets")
        } else {
            parts.append("its last packet")
        }
        if let missing, missing.value > 0 { parts.append("\(String(format1: missing.seconds)) s") }
        let after = end.map { " after \($0)" } ?? ""
        return "track \(track) is cut short\(after): \(parts.joined(separator: ", ")) missing"
    }
}
