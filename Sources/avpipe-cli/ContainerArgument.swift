import ArgumentParser
import AVPipeline

/// The containers a command's `--format` takes, in the order its help lists them.
protocol ContainerChoices {
    static var choices: [Container] { get }
}

/// A `--format` value: one of `Choices`' containers, by its name (`Container`'s raw value).
struct FormatArgument<Choices: ContainerChoices>: ExpressibleByArgument {
    let container: Container

    init?(argument: String) {
        guard let container = Container(rawValue: argument), Choices.choices.contains(container) else { return nil }
        self.container = container
    }

    static var allValueStrings: [String] { Choices.choices.map(\.rawValue) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
    var defaultValueDescription: String { container.rawValue }
}

/// What `mux`, `remux` and `hls` write: the `Muxer`'s containers.
enum MuxedContainers: ContainerChoices {
    static let choices = Container.allCases.filter(\.isMultiTrack)
}

/// What `decode` writes audio into.
enum AudioFileContainers: ContainerChoices {
    static let choices = Container.allCases.filter(\.isAudioFile)
}
