/// A person as calendars know one: a display name with an email address and/or a phone number.
public struct PersonValue: Sendable, Hashable {
    public var name: String?
    public var email: String?
    public var phone: String?

    public init(name: String? = nil, email: String? = nil, phone: String? = nil) {
        self.name = name
        self.email = email
        self.phone = phone
    }

    /// "Ada Lovelace <ada@example.org>", or whichever parts exist.
    public var displayText: String {
        switch (name, email ?? phone) {
        case let (name?, contact?): return "\(name) <\(contact)>"
        case let (name?, nil): return name
        case let (nil, contact?): return contact
        case (nil, nil): return ""
        }
    }
}

/// A place: a name, a postal address, and/or coordinates (WGS 84 degrees).
public struct PlaceValue: Sendable, Hashable {
    public var name: String?
    public var address: String?
    public var latitude: Double?
    public var longitude: Double?

    public init(name: String? = nil, address: String? = nil, latitude: Double? = nil, longitude: Double? = nil) {
        self.name = name
        self.address = address
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Its name and address; a place known only by its coordinates shows them
    /// ("52.5163° N, 13.3777° E"), so it never prints as nothing.
    public var displayText: String {
        let text = [name, address].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        guard text.isEmpty, let latitude, let longitude else { return text }
        return PlaceValue.degrees(latitude, positive: "N", negative: "S") + ", " + PlaceValue.degrees(longitude, positive: "E", negative: "W")
    }

    /// Four decimals (about 11 m), without Foundation's formatting.
    private static func degrees(_ value: Double, positive: String, negative: String) -> String {
        let scaled = Int((abs(value) * 10_000).rounded())
        let fraction = String(scaled % 10_000)
        return "\(scaled / 10_000).\(String(repeating: "0", count: 4 - fraction.count))\(fraction)° \(value < 0 ? negative : positive)"
    }
}
