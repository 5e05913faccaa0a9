{% macro _cdc_folded_families() %}
    {#-
        The registered families whose keyed changes are folded onto the row before them.
        The registered families whose keyed changes int_cdc__document_changes folds onto
        the row or document before them: the document families (a patch needs the
        document before it) and the families whose update images may be partial (their
        hook `folds_row_images`: OGG's compressed updates).
    -#}
    {%- set folded = [] -%}
    {%- for family in cdc_lakehouse._cdc_connector_families() -%}
        {%- if family in cdc_lakehouse._cdc_document_families() or cdc_lakehouse.cdc_family_hook(family, 'folds_row_images')() -%}
            {%- do folded.append(family) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(folded) }}
{% endmacro %}
