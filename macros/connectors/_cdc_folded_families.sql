{% macro _cdc_folded_families() %}
    {#- The registered families whose keyed changes are folded onto the row before them. -#}
    {%- set folded = [] -%}
    {%- for family in cdc_lakehouse._cdc_connector_families() -%}
        {%- if family in cdc_lakehouse._cdc_document_families() or cdc_lakehouse.cdc_family_hook(family, 'folds_row_images')() -%}
            {%- do folded.append(family) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(folded) }}
{% endmacro %}
