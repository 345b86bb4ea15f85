// llama.cpp's layer split over equal cards, as a list of layers per GPU: read
// from the request ("41,39"), written back, and turned into the --tensor-split
// weights that reproduce it exactly.
#pragma once
#include <string>
#include <vector>

#include "llmsizer/result.hpp"

namespace llmsizer {

// "41,39": one whole number of layers per GPU, each 1 to 100000, at most 1024
// of them. Error "request.bad_value" naming the bad part.
Result<std::vector<int>> parse_layer_split(const std::string& text);
std::string layer_split_text(const std::vector<int>& layers_per_gpu);

// --tensor-split weights giving each GPU exactly its run of layer slots (the
// output layer is the last slot when it is on a GPU). llama.cpp sends slot i
// to the first GPU whose cumulative share of the weights exceeds i / slots
// (llama-model.cpp, std::upper_bound over the normalised split points), so
// each boundary is put half a slot early: no slot sits on a tie.
std::vector<int> tensor_split_weights(const std::vector<int>& slots_per_gpu);

}  // namespace llmsizer
