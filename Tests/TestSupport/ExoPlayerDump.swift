import Foundation

/// Reads the per-sample `data = length L, hash H` lines of an ExoPlayer/Media3 extractor dump
/// (see the corpus MANIFEST) and computes the same hash over our bytes.
public enum ExoPlayerDump {
    public struct Sample: Equatable, Sendable, CustomStringConvertible {
        public let length: Int
        public let hash: UInt32
        public init(length: Int, hash: UInt32) { self.length = length; self.hash = hash }
        public var description: String { "length \(length), hash \(String(hash, radix: 16, uppercase: true))" }
    }

    /// Samples of track `track`, in file order.
    public static func samples(_ path: String, track: Int = 0) throws -> [Sample] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var current = -1
        var samples: [Sample] = []
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("track "), trimmed.hasSuffix(":"), let n = Int(trimmed.dropFirst(6).dropLast()) { current = n }
            guard current == track, trimmed.hasPrefix("data = length ") else { continue }
            let parts = trimmed.dropFirst("data = length ".count).components(separatedBy: ", hash ")
            guard parts.count == 2, let length = Int(parts[0]), let hash = UInt32(parts[1], radix: 16) else { continue }
            samples.append(Sample(length: length, hash: hash))
        }
        return samples
    }

    /// Java's `Arrays.hashCode(byte[])`: h = 31·h + (signed byte), from 1, wrapping at 32 bits.
    public static func hash<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var h: Int32 = 1
        for byte in bytes { h = h &* 31 &+ Int32(Int8(bitPattern: byte)) }
        return UInt32(bitPattern: h)
    }
}
