import Foundation

/// A file cut short like a partial download, and what a reader can still get from it, told by
/// ffprobe on the *intact* file: the packets that lie wholly before the cut are the intact ones.
public struct PartialDownload {
    public struct Packet: Equatable, CustomStringConvertible {
        public let pts: Int64?
        public let size: Int
        public init(pts: Int64?, size: Int) {
            self.pts = pts
            self.size = size
        }
        public var description: String { "\(pts.map(String.init) ?? "-")/\(size)" }
    }

    public let intactFile: String
    public let cutFile: String
    public let cutLength: Int

    /// Writes the first `fraction` of `intact` to `cut`.
    public init(_ intact: String, fraction: Double, as cut: String) throws {
        intactFile = intact
        cutFile = cut
        cutLength = Int(Double(fileSize(intact)) * fraction)
        try SampleMedia.truncate(intact, to: cutLength, as: cut)
    }

    /// The packets of `stream` ("a:0", "v:0") in the intact file, in file order.
    public func allPackets(_ stream: String) throws -> [Packet] {
        try Probe.packets(intactFile, stream: stream).map(Self.packet)
    }

    /// The packets of `stream` whose bytes all lie before the cut.
    public func intactPackets(_ stream: String) throws -> [Packet] {
        try Probe.packets(intactFile, stream: stream).filter { packet in
            guard let position = (packet["pos"] as? String).flatMap({ Int($0) }),
                  let size = (packet["size"] as? String).flatMap({ Int($0) }) else { return false }
            return position + size <= cutLength
        }.map(Self.packet)
    }

    /// The packets of `stream` in any file, as ffprobe reads them.
    public static func packets(_ path: String, stream: String) throws -> [Packet] {
        try Probe.packets(path, stream: stream).map(packet)
    }

    private static func packet(_ json: [String: Any]) -> Packet {
        Packet(pts: (json["pts"] as? Int).map(Int64.init) ?? (json["pts"] as? NSNumber)?.int64Value,
               size: (json["size"] as? String).flatMap { Int($0) } ?? -1)
    }
}
