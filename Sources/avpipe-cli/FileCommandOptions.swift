import ArgumentParser

/// The options every command that reads media files and writes from them ends with, in this
/// order in its help: what an input may open, whether an output may replace a file, FFmpeg's logging.
struct FileCommandOptions: ParsableArguments {
    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var logging: LoggingOptions
}

/// `--video-track N` of the commands that read one video track (validated by each, in its order).
struct VideoTrackOption: ParsableArguments {
    @Option(help: "Which video track, counting from 0 in file order (default: the main one).")
    var videoTrack: Int?
}

/// `--width`/`--height` of a picture scaled with its proportions kept (validated by each command).
struct PictureSizeOptions: ParsableArguments {
    @Option(help: "Width in pixels (the height follows the picture's proportions).")
    var width: Int?

    @Option(help: "Height in pixels (the width follows the picture's proportions).")
    var height: Int?
}
