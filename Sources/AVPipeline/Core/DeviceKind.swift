/// The kinds of device a pipeline plays to or captures from: what `AVPipelineError.deviceUnavailable`
/// says is missing, and what a device input (`InputSource.device`) reads.
public enum DeviceKind: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// A screen to show pictures on (an X11 or Wayland display).
    case display
    /// A sound card or sound server to play to.
    case audioOutput
    /// A microphone or sound server source to record from.
    case audioInput
    /// A video capture device (V4L2 on Linux).
    case camera
    /// A screen to capture (x11grab).
    case screen
    /// A hardware video encoder (VA-API, NVENC, Quick Sync…).
    case videoEncoder

    /// How an error names it: "display", "audio output device"…
    public var description: String {
        switch self {
        case .display: "display"
        case .audioOutput: "audio output device"
        case .audioInput: "audio input device"
        case .camera: "camera"
        case .screen: "screen to capture"
        case .videoEncoder: "hardware video encoder"
        }
    }
}
