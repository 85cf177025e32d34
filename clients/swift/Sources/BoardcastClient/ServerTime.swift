import Foundation

/// The server's instants (RFC 3339 UTC with milliseconds, PROTOCOL sections 3 and 17), read into
/// `Date`s: `joined`'s `now`, and a clock's `since`.
public enum ServerTime {
    public static func parse(_ text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: text) { return date }
        return ISO8601DateFormatter().date(from: text)
    }
}
