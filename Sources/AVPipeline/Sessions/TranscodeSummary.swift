/// What a finished `TranscodeSession.run` wrote.
public struct TranscodeSummary: Sendable {
    /// The output, as named to the session.
    public let output: String
    /// The container written.
    public let container: Container
    /// How long the output is, when known.
    public let duration: MediaTime?
    /// Whether `stop()` ended the run before the input's end (the output is complete all the same).
    public let stopped: Bool
}
