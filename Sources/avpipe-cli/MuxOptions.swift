import ArgumentParser
import AVPipeline

/// What `mux` and `remux` share: the container choice and its layout.
struct MuxLayoutOptions: ParsableArguments {
    @Flag(help: "Write a fragmented MP4 that stays playable up to its last completed fragment if the process dies.")
    var fragmented = false

    @Flag(help: "Leave the index (moov) after the media data instead of moving it to the front.")
    var noFaststart = false

    @Flag(help: "Write no faster than real time, like a live recording.")
    var realtime = false

    func options(overwrite: Bool) -> Muxer.Options {
        Muxer.Options(faststart: !noFaststart, fragmented: fragmented, overwrite: overwrite, realtime: realtime)
    }

    static func validateOutput(_ output: String) throws {
        guard MuxContainer(path: output) != nil else {
            let ext = OutputPaths.fileExtension(output)
            throw ValidationError("cannot tell the container from \(ext.isEmpty ? "'\(output)' (no extension)" : "extension '.\(ext)'"): use \(MuxContainer.extensionsText)")
        }
    }
}

/// A frame rate typed as `25`, `29.97` or `30000/1001`.
struct FrameRateArgument: ExpressibleByArgument {
    let rate: Rational

    init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, let num = Int32(parts[0]), let den = Int32(parts[1]), num > 0, den > 0 {
            rate = Rational(num, den)
        } else if parts.count == 1, let value = Double(argument), value > 0, value <= 1000 {
            // Decimal rates: 29.97 → 2997/100 (exact to the hundredth, as rates are written).
            rate = Rational(Int32((value * 100).rounded()), 100)
        } else {
            return nil
        }
    }
}
