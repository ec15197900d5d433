/// A screen or camera that `VideoCapture` reads through libavdevice: it says which device demuxer
/// opens it and how (`DeviceOpening`), and the capture reads it as a file is read.
///
/// The core never names a device system; AVPipelineDevices' `VideoCaptureDevice` is the X11
/// (`x11grab`) screen and V4L2 camera one, and a platform adds its own (avfoundation, gdigrab…)
/// by conforming.
public protocol VideoCaptureSource: Sendable, CustomStringConvertible {
    /// How libavdevice opens it, asking for `frameRate` and, where the device takes one, `size`.
    /// Throws `deviceUnavailable` when it cannot be (no display, no such device node), or
    /// `invalidOption` for a setting of its own out of range.
    func opening(frameRate: Rational, size: (width: Int, height: Int)?) throws -> DeviceOpening
}
