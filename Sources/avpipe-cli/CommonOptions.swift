import ArgumentParser

/// Options every subcommand that writes a file shares.
struct OutputOptions: ParsableArguments {
    @Flag(name: [.customShort("y"), .long], help: "Replace the output file if it exists.")
    var overwrite = false
}

struct LoggingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Let FFmpeg print its own warnings and information.")
    var verbose = false
}
