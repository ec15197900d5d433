import ArgumentParser

/// A command that takes `--rate` and `--channels`, in its own words.
protocol AudioFormatHelp {
    static var audioFormatHelp: AudioFormatText { get }
}

/// How a command describes its `--rate` and `--channels`: its help, and the rates it takes.
struct AudioFormatText {
    let rate: ArgumentHelp
    let channels: ArgumentHelp
    /// Rates `--rate` takes, and the unit its error message names after them (" Hz" or "").
    let rates: ClosedRange<Int>
    var rateUnit = ""
}

/// `--rate` and `--channels`: the sample rate and channel count of the audio a command writes
/// (`encode`, `record`), declared once; each command gives its own words (`Help`).
struct AudioFormatArguments<Help: AudioFormatHelp>: ParsableArguments {
    @Option(help: Help.audioFormatHelp.rate)
    var rate: Int?

    @Option(help: Help.audioFormatHelp.channels)
    var channels: Int?

    /// Called by the command's `validate()`, where its other checks put it (the first failing
    /// check is the one reported).
    func check() throws {
        let text = Help.audioFormatHelp
        if let rate, !text.rates.contains(rate) {
            throw ValidationError("--rate must be between \(text.rates.lowerBound) and \(text.rates.upperBound)\(text.rateUnit) (got \(rate))")
        }
        if let channels, !(1...8).contains(channels) { throw ValidationError("--channels must be between 1 and 8 (got \(channels))") }
    }
}
