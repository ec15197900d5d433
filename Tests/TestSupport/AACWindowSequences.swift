/// The window sequence of each AAC frame in an ADTS file, read by the test suite itself from the
/// raw data blocks (ISO/IEC 14496-3 §4.4.2): fill elements skipped, then the first channel element's
/// ics_info (for a CPE, the common one, or the first channel's when the channels have their own).
public enum AACWindowSequences {
    public enum Sequence: Int, Sendable { case onlyLong = 0, longStart, eightShort, longStop }

    public static func firstChannel(_ bytes: [UInt8]) throws -> [Sequence] {
        var sequences: [Sequence] = []
        var offset = 0
        for header in try ADTSParser.headers(bytes) {
            let start = offset + (header.protectionAbsent ? 7 : 9)
            var reader = BitReader(bytes: bytes[start..<(offset + header.frameLength)])
            var element = try reader.read(3)
            while element == 6 {  // FIL: count, escaped when 15, then that many bytes
                var count = try reader.read(4)
                if count == 15 { count += try reader.read(8) - 1 }
                try reader.skip(8 * count)
                element = try reader.read(3)
            }
            _ = try reader.read(4)  // element_instance_tag
            switch element {
            case 0, 3: _ = try reader.read(8)  // SCE, LFE: global_gain, then ics_info
            case 1: if try reader.read(1) == 0 { _ = try reader.read(8) }  // CPE: common_window?
            default: throw TestFailure("AAC frame \(sequences.count): element \(element) first, not a channel element")
            }
            _ = try reader.read(1)  // ics_reserved_bit
            sequences.append(Sequence(rawValue: try reader.read(2))!)
            offset += header.frameLength
        }
        return sequences
    }

    /// Frames whose window does not continue the previous one's: a long right half must meet a
    /// long left half (ONLY_LONG or LONG_START), a short one a short one (EIGHT_SHORT or LONG_STOP).
    public static func illegalTransitions(_ sequences: [Sequence]) -> [Int] {
        func endsShort(_ s: Sequence) -> Bool { s == .longStart || s == .eightShort }
        func startsShort(_ s: Sequence) -> Bool { s == .eightShort || s == .longStop }
        return sequences.indices.dropFirst().filter { endsShort(sequences[$0 - 1]) != startsShort(sequences[$0]) }
    }

    struct BitReader {
        let bytes: ArraySlice<UInt8>
        var position = 0

        init(bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        mutating func read(_ count: Int) throws -> Int {
            var value = 0
            for _ in 0..<count {
                let index = bytes.startIndex + position / 8
                guard index < bytes.endIndex else { throw TestFailure("AAC frame ends inside its first element") }
                value = value << 1 | Int(bytes[index] >> (7 - UInt8(position % 8)) & 1)
                position += 1
            }
            return value
        }

        mutating func skip(_ count: Int) throws {
            position += count
            guard position <= bytes.count * 8 else { throw TestFailure("AAC fill element overruns its frame") }
        }
    }
}
