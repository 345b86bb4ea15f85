// Reads one JSON request per line on stdin and prints the engine's JSON response
// per line: the native side of the wasm parity test (tests/wasm).
#include <iostream>
#include <string>

#include "llmsizer/catalog.hpp"
#include "llmsizer/json_contract.hpp"
#include "llmsizer/sizer.hpp"

int main() {
  auto catalog = llmsizer::embedded_catalog();
  if (!catalog) {
    std::cerr << catalog.error().message << "\n";
    return 1;
  }
  const llmsizer::Sizer sizer(std::move(catalog).value());
  std::string line;
  while (std::getline(std::cin, line)) std::cout << llmsizer::estimate_response(sizer, line) << "\n";
  return 0;
}
