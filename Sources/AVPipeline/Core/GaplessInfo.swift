/// Where the real audio lies in an encoded stream: AAC decoders start `priming` samples early (the
/// encoder's delay) and the last packet is filled up with `padding` samples after the `validSamples`
/// real ones. An M4A records this twice — its edit list and the `iTunSMPB` tag Apple's players read —
/// so that a decode gives back exactly the samples that were encoded.
public struct GaplessInfo: Sendable, Equatable {
    /// Samples the decoder gives before the real audio starts (the encoder's delay).
    public let priming: Int
    /// Samples after the real audio that fill up the last packet.
    public let padding: Int
    /// How many real samples the stream holds.
    public let validSamples: Int64

    /// Gapless facts from their three numbers.
    public init(priming: Int, padding: Int, validSamples: Int64) {
        self.priming = priming
        self.padding = padding
        self.validSamples = validSamples
    }

    /// The tag's value as iTunes writes it: hex fields, the second to fourth being priming, padding
    /// and the sample count.
    var iTunSMPB: String {
        func hex(_ value: Int64, _ digits: Int) -> String {
            let text = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: Swift.max(0, digits - text.count)) + text
        }
        let fields = ["00000000", hex(Int64(priming), 8), hex(Int64(padding), 8), hex(validSamples, 16)]
            + Array(repeating: "00000000", count: 8)
        return " " + fields.joined(separator: " ")
    }

    /// Parses an `iTunSMPB` value; nil when it is not one.
    init?(iTunSMPB value: String) {
        let fields = value.split(separator: " ")
        guard fields.count >= 4, let priming = Int(fields[1], radix: 16), let padding = Int(fields[2], radix: 16),
              let valid = Int64(fields[3], radix: 16), valid > 0, priming >= 0, padding >= 0 else { return nil }
        self.init(priming: priming, padding: padding, validSamples: valid)
    }
}
