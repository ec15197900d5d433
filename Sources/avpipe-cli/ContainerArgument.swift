import ArgumentParser
import AVPipeline

/// The containers a command's `--format` takes, in the order its help lists them.
protocol ContainerChoices {
    static var choices: [Container] { get }
    /// Extensions of `choices` the command refuses all the same (names it never took).
    static var refusedExtensions: Set<String> { get }
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

extension ContainerChoices {
    /// The container an output name asks for, when it is one of `choices` and not one of
    /// `refusedExtensions`.
    static func container(of path: String) -> Container? {
        guard !refusedExtensions.contains(Container.fileExtension(of: path)),
              let container = Container(path: path), choices.contains(container) else { return nil }
        return container
    }

    static var refusedExtensions: Set<String> { [] }
}

/// What `encode` writes: the containers of a `TranscodeSession`.
enum EncodeContainers: ContainerChoices {
    static let choices = TranscodeSession.containers
    /// Other names of these containers that `encode` has never taken.
    static let refusedExtensions = TranscodeSession.refusedExtensions
}

/// What `record` writes: `encode`'s containers, Matroska, and PCM in a WAV.
enum RecordingContainers: ContainerChoices {
    static let choices: [Container] = [.adts, .wav, .m4a, .mp4, .mkv, .ts, .hls, .flv]
    /// Other names of these containers that `record` has never taken.
    static let refusedExtensions: Set<String> = ["m4b", "m4v", "mts", "wave"]
}
