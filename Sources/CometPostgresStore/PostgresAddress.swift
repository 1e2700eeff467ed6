import Foundation

/// A `postgresql://` or `postgres://` location as the store reads it: libpq's own URI (host,
/// port, database, user, `?host=/socket/folder`, sslmode, …) plus one parameter of CometCal's,
/// `cometcal_user`, the owner whose rows the opened store reads and writes. libpq would refuse a
/// parameter it does not know, so it is taken out before libpq sees the address. Without it, the
/// owner is the database role the connection logs in as.
struct PostgresAddress: Sendable, Hashable {
    /// What libpq connects with.
    let conninfo: String
    /// The owner named in the address, if any.
    let owner: String?
    /// The address as a message may show it: the password left out.
    let shown: String

    static let ownerParameter = "cometcal_user"

    init(_ text: String) {
        guard let mark = text.firstIndex(of: "?") else {
            conninfo = text
            owner = nil
            shown = PostgresAddress.withoutPassword(text)
            return
        }
        let base = String(text[..<mark])
        var kept: [Substring] = []
        var owner: String?
        for parameter in text[text.index(after: mark)...].split(separator: "&") {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            if parts.first == Substring(PostgresAddress.ownerParameter) {
                owner = parts.count == 2 ? String(parts[1]).removingPercentEncoding ?? String(parts[1]) : ""
            } else {
                kept.append(parameter)
            }
        }
        conninfo = kept.isEmpty ? base : base + "?" + kept.joined(separator: "&")
        self.owner = owner
        shown = PostgresAddress.withoutPassword(text)
    }

    /// `postgresql://user:secret@host/db` shown as `postgresql://user:…@host/db`.
    static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        guard let at = rest.firstIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<rest.index(after: colon)]) + "…" + String(rest[at...])
    }
}
