import AppSettings
import Foundation

print("hello")
