# Writes a C++ source holding the catalog files (JSON, and the configs' TSV) as
# string constants.
# Raw string literals are split in chunks: compilers cap one literal's length.
# Each chunk is a char array of its own, not a bare literal: the linker merges
# and reorders literals (wasm-ld sorted these chunks apart, which cost the
# gzipped wasm 9 KiB: 201.2 -> 192.1), while arrays stay in the order written.
function(append_json_constant out_var name path)
  file(READ ${path} content)
  string(LENGTH "${content}" total)
  set(code "")
  set(pointers "")
  set(offset 0)
  set(index 0)
  set(chunk 16000)
  while(offset LESS total)
    string(SUBSTRING "${content}" ${offset} ${chunk} piece)
    string(APPEND code "static const char ${name}_${index}[] = R\"llmsizer(${piece})llmsizer\";\n")
    string(APPEND pointers "${name}_${index}, ")
    math(EXPR offset "${offset} + ${chunk}")
    math(EXPR index "${index} + 1")
  endwhile()
  string(APPEND code "extern const char* const ${name}[];\nconst char* const ${name}[] = {${pointers}nullptr};\n")
  set(${out_var} "${${out_var}}${code}" PARENT_SCOPE)
endfunction()

set(source "// Generated from data/*.json by scripts/cmake/embed_catalog.cmake. Do not edit.\nnamespace llmsizer::embedded {\n")
append_json_constant(source kModelsJson ${MODELS})
append_json_constant(source kDevicesJson ${DEVICES})
append_json_constant(source kOffersJson ${OFFERS})
append_json_constant(source kModelFactsJson ${MODEL_FACTS})
append_json_constant(source kModelConfigsTsv ${MODEL_CONFIGS})
append_json_constant(source kDistributionJson ${DISTRIBUTION})
string(APPEND source "}  // namespace llmsizer::embedded\n")
file(WRITE ${OUTPUT}.tmp "${source}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
